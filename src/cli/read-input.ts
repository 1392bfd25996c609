import {readFile} from 'node:fs/promises'
import {SvcError} from '../core/errors.js'

/** Reads FILE, or standard input for `-`. */
export async function readFileOrStdin(path: string): Promise<string> {
  if (path !== '-') {
    try {
      return await readFile(path, 'utf8')
    } catch (error) {
      throw new SvcError('usage', 0, `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`)
    }
  }
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

/** Parses JSON given on the command line or in a file; a usage error names where it came from. */
export function parseJsonArg(text: string, where: string): unknown {
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new SvcError('usage', 0, `${where} is not valid JSON: ${(error as Error).message}`)
  }
}

/** Parses repeated `key=value` flags into an object. */
export function parsePairs(pairs: string[] | undefined, flag: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const pair of pairs ?? []) {
    const eq = pair.indexOf('=')
    if (eq <= 0) throw new SvcError('usage', 0, `${flag} takes key=value, got "${pair}"`)
    out[pair.slice(0, eq)] = pair.slice(eq + 1)
  }
  return out
}

/** True when a person can answer prompts (both ends are terminals, and not CI). */
export const interactive = () => Boolean(process.stdin.isTTY && process.stdout.isTTY && !process.env.CI)
