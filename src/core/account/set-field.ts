import {FieldErrorBag} from '../errors.js'
import {isIdentifier} from '../auth/permissions.js'

export const SETTABLE_KEYS = ['account.settings.modules'] as const
export type SetFieldAction = 'add' | 'remove'

export interface SetFieldRequest {
  key: (typeof SETTABLE_KEYS)[number]
  action: SetFieldAction
  value: string
}

/** Validates the query of `POST /account/set_field.json`; 422 with a field map when wrong. */
export function parseSetField(query: Record<string, string | undefined>): SetFieldRequest {
  const errors = new FieldErrorBag()
  const {key, action_type: action, value} = query
  if (!key) errors.add('key', "can't be blank")
  else if (!(SETTABLE_KEYS as readonly string[]).includes(key)) errors.add('key', `is not supported (supported: ${SETTABLE_KEYS.join(', ')})`)
  if (action !== 'add' && action !== 'remove') errors.add('action_type', 'must be add or remove')
  if (!value) errors.add('value', "can't be blank")
  else if (!isIdentifier(value)) errors.add('value', 'must be a module name (a-z, 0-9, _)')
  errors.throwIfAny()
  return {key: key as SetFieldRequest['key'], action: action as SetFieldAction, value: value!}
}

/** The module list after adding or removing one module (order kept, no duplicates). */
export function applyModuleChange(modules: readonly string[], action: SetFieldAction, value: string): string[] {
  if (action === 'add') return modules.includes(value) ? [...modules] : [...modules, value]
  return modules.filter((m) => m !== value)
}
