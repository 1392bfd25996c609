/** The current user and the account settings endpoint. */
import {z} from './common.js'

export const ROLES = ['admin', 'manager', 'user', 'guest'] as const

export const User = z.object({
  id: z.number().int(),
  account_id: z.number().int(),
  login: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.enum(ROLES),
  permissions: z.array(z.string()),
  team_ids: z.array(z.number().int()),
  group_ids: z.array(z.number().int()),
  department_ids: z.array(z.number().int()),
  team_names: z.array(z.string()),
  group_names: z.array(z.string()),
  department_names: z.array(z.string()),
}).openapi('User')

export const Me = User.extend({
  account: z.object({id: z.number().int(), name: z.string(), modules: z.array(z.string())}),
}).openapi('Me')

export const SetFieldQuery = z.object({
  key: z.string().openapi({example: 'account.settings.modules'}),
  action_type: z.enum(['add', 'remove']),
  value: z.string().openapi({example: 'crm'}),
})

export const SetFieldResult = z.object({key: z.string(), value: z.array(z.string())}).openapi('SetFieldResult')

export type UserView = z.infer<typeof User>
export type MeView = z.infer<typeof Me>
