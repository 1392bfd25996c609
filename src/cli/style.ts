/**
 * Colour for human output: only on a terminal, never with `NO_COLOR` set (https://no-color.org),
 * forced with `FORCE_COLOR=1`. picocolors is tiny; `createColors(false)` returns plain strings.
 */
import {createRequire} from 'node:module'

type Picocolors = typeof import('picocolors')
let pc: Picocolors | undefined
/** picocolors is loaded on the first coloured output (commands that print nothing coloured never load it). */
const load = (): Picocolors => (pc ??= createRequire(import.meta.url)('picocolors') as Picocolors)

type Stream = {isTTY?: boolean}

export function colorEnabled(stream: Stream): boolean {
  const env = process.env
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return true
  return Boolean(stream.isTTY) && env.TERM !== 'dumb'
}

export type Colors = ReturnType<Picocolors['createColors']>

/** Colours for stdout and stderr, each decided by its own stream. */
export const out = (): Colors => load().createColors(colorEnabled(process.stdout))
export const err = (): Colors => load().createColors(colorEnabled(process.stderr))
