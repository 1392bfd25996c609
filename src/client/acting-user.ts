/**
 * What the embedded backend (src/client/embedded.ts) and the render fast path
 * (src/fastpath/embedded-render.ts) share on the client side: the options, the system prompt dirs
 * and the description. The data dir check and the acting user are the store's
 * (src/store/local-user.ts). Kept free of the HTTP app and of other areas' code so the fast path stays light.
 */
import {relative, resolve} from 'node:path'
import {PACKAGE_SYSTEM_PROMPTS} from '../paths.js'

export const EMBEDDED_ORIGIN = 'http://localhost'

export interface EmbeddedOptions {
  dataDir: string
  /** PostgreSQL instead of the data dir's SQLite file (the data dir then holds only files: compile cache). */
  databaseUrl?: string
  /** Act as this login (default: the first admin of the first account). */
  as?: string
  systemPromptsDir?: string
}

/** The package's system prompts, then `--system-prompts DIR` (later dirs win). */
export function embeddedSystemPromptsDirs(options: EmbeddedOptions): string[] {
  return [PACKAGE_SYSTEM_PROMPTS, ...(options.systemPromptsDir ? [resolve(options.systemPromptsDir)] : [])]
}

/** How an embedded target is shown (stderr, `svc whoami`): `local: ./.svc as admin`. */
export function embeddedDescription(dataDir: string, login: string): string {
  const shown = relative(process.cwd(), dataDir) || '.'
  return `local: ${shown.startsWith('..') ? dataDir : `./${shown}`} as ${login}`
}
