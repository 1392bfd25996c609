/** The current user and the account settings endpoint. */
import {isIdentifier} from '../auth/permissions.js'
import {z} from './common.js'
import {blankMessage} from './messages.js'

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

/** Keys `set_field` can change. */
export const SETTABLE_KEYS = ['account.settings.modules'] as const

/** A choice's message, but "can't be blank" when the parameter is absent (as every other field says it). */
const unlessAbsent = (message: string) => ({error: (issue: {input?: unknown}) => (issue.input === undefined ? blankMessage : message)})

/** The query of `POST /account/set_field.json`; its failures are one 422 field map. */
export const SetFieldQuery = z.object({
  key: z.enum(SETTABLE_KEYS, unlessAbsent(`is not supported (supported: ${SETTABLE_KEYS.join(', ')})`)),
  action_type: z.enum(['add', 'remove'], {error: 'must be add or remove'}),
  value: z.string().refine(isIdentifier, 'must be a module name (a-z, 0-9, _)')
    .openapi({example: 'crm', pattern: '^[a-z][a-z0-9_]{0,39}$'}),
})

export const SetFieldResult = z.object({key: z.string(), value: z.array(z.string())}).openapi('SetFieldResult')

// ------------------------------------------------------------- user administration (admins only)
const nameText = (max: number) => z.string().max(max).refine((v) => v.trim() !== '', "can't be blank")
/** A new user of the caller's account: what `svc admin user add` takes. */
export const UserCreate = z.object({
  login: z.string().regex(/^[A-Za-z0-9_.@+-]{1,64}$/, 'must be 1-64 characters of letters, digits, _ . @ + -'),
  role: z.enum(ROLES, {error: 'must be one of admin, manager, user, guest'}).optional(),
  permissions: z.array(z.string().refine(isIdentifier, 'must be a permission name (a-z, 0-9, _)')).max(50).optional(),
  teams: z.array(nameText(100)).max(20).optional().openapi({description: 'Team names (created in the account when missing)'}),
  department: nameText(100).nullable().optional().openapi({description: 'Department name (created when missing)'}),
  email: z.string().max(254).optional(),
  name: z.string().max(200).optional(),
}).openapi('UserCreate')
export const UserCreateBody = z.object({user: UserCreate})
export const CreatedUser = z.object({
  user: User, token: z.string().openapi({description: 'The new user\'s API token: shown once, only its hash is stored'}),
}).openapi('CreatedUser')
export const RevokedTokens = z.object({
  user_id: z.number().int(), revoked: z.number().int().openapi({description: 'API tokens, console sessions and app sign-ins removed'}),
}).openapi('RevokedTokens')

/** Per-user settings (src/core/account/user-settings.ts): key → a JSON value. */
export const Settings = z.object({settings: z.record(z.string(), z.unknown())}).openapi('UserSettings')
export const SettingsPatch = z.object({
  settings: z.record(z.string(), z.unknown()).openapi({description: 'Keys to set (any JSON value up to 16 KB) or remove (null); other keys are kept'}),
})

export type UserView = z.infer<typeof User>
export type MeView = z.infer<typeof Me>
export type SetFieldRequest = z.output<typeof SetFieldQuery>
export type SetFieldAction = SetFieldRequest['action_type']
