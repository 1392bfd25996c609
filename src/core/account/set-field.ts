/** `POST /account/set_field.json`: the query is the contract's (core/contract/account.ts SetFieldQuery); the change itself. Pure. */
import type {SetFieldAction} from '../contract/account.js'

export type {SetFieldAction, SetFieldRequest} from '../contract/account.js'

/** The module list after adding or removing one module (order kept, no duplicates). */
export function applyModuleChange(modules: readonly string[], action: SetFieldAction, value: string): string[] {
  if (action === 'add') return modules.includes(value) ? [...modules] : [...modules, value]
  return modules.filter((m) => m !== value)
}
