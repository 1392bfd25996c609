/**
 * The difference between two versions of a resource (docs/history.md): a line diff (unified, from
 * the `diff` package) of a prompt's content and an app's source, a line diff of the pretty JSON for
 * the rest, and the top-level members that changed.
 */
import {createTwoFilesPatch} from 'diff'
import type {JournalKind} from './types.js'

export interface VersionDiff {
  /** Top-level members whose value changed (added or removed included). */
  changed: string[]
  /** A unified diff, `a` the older version and `b` the newer (empty when nothing changed). */
  patch: string
}

/** The member that is text a person edits line by line, per kind. */
const TEXT_MEMBER: Partial<Record<JournalKind, string>> = {prompt: 'content', app: 'source_code'}

const canonical = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(canonical)
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((k) => [k, canonical((value as Record<string, unknown>)[k])]))
  }
  return value
}
const pretty = (value: unknown) => (value === null || value === undefined ? '' : `${JSON.stringify(canonical(value), null, 2)}\n`)

export function diffVersions(kind: JournalKind, older: unknown, newer: unknown): VersionDiff {
  const a = (older && typeof older === 'object' ? older : {}) as Record<string, unknown>
  const b = (newer && typeof newer === 'object' ? newer : {}) as Record<string, unknown>
  const keys = [...new Set([...Object.keys(a), ...Object.keys(b)])].sort()
  const changed = keys.filter((k) => JSON.stringify(canonical(a[k])) !== JSON.stringify(canonical(b[k])))
  if (older === null && newer === null) return {changed: [], patch: ''}
  const text = TEXT_MEMBER[kind]
  const parts: string[] = []
  if (text && changed.includes(text)) {
    const at = (v: Record<string, unknown>) => (typeof v[text] === 'string' ? (v[text] as string) : '')
    parts.push(createTwoFilesPatch(`a/${text}`, `b/${text}`, withNewline(at(a)), withNewline(at(b)), undefined, undefined, {context: 3}))
  }
  const rest = (v: unknown) => {
    if (!v || typeof v !== 'object' || !text) return v
    const {[text]: _skip, ...others} = v as Record<string, unknown>
    return others
  }
  if (changed.some((k) => k !== text)) {
    parts.push(createTwoFilesPatch('a/version.json', 'b/version.json', pretty(rest(older)), pretty(rest(newer)), undefined, undefined, {context: 3}))
  }
  return {changed, patch: parts.join('')}
}

const withNewline = (s: string) => (s === '' || s.endsWith('\n') ? s : `${s}\n`)
