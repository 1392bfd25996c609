/**
 * Per-user settings (`GET|PATCH /svc/me/settings.json`): small JSON values under keys the
 * clients choose — the console keeps a grid's hidden and ordered columns under
 * `grid:<db id>:<table>`. Bounded, so a user cannot fill the server through them.
 */
import {FieldErrorBag} from '../errors.js'

export const SETTING_KEY = /^[A-Za-z0-9_.:-]{1,100}$/
export const MAX_SETTINGS = 200
export const MAX_SETTING_BYTES = 16 * 1024

/** The changes of a PATCH checked: `{key: value}` to store (JSON text) or `{key: null}` to remove; a 422 names each bad key. */
export function checkSettingChanges(changes: Record<string, unknown>): Map<string, string | null> {
  const bag = new FieldErrorBag()
  const out = new Map<string, string | null>()
  for (const [key, value] of Object.entries(changes)) {
    if (!SETTING_KEY.test(key)) {
      bag.add(`settings.${key.slice(0, 100)}`, 'is not a setting key (1-100 letters, digits, _ . : -)')
      continue
    }
    if (value === null) {
      out.set(key, null)
      continue
    }
    const text = JSON.stringify(value)
    if (new TextEncoder().encode(text).length > MAX_SETTING_BYTES) bag.add(`settings.${key}`, `is too large (at most ${MAX_SETTING_BYTES} bytes of JSON)`)
    else out.set(key, text)
  }
  bag.throwIfAny()
  return out
}

/** The 422 when a user would hold more settings than allowed. */
export function tooManySettings(): never {
  new FieldErrorBag().add('settings', `at most ${MAX_SETTINGS} settings per user: remove some (a null value removes one)`).throwIfAny()
  throw new Error('unreachable')
}
