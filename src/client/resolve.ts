import {SvcError} from '../core/errors.js'
import {DEFAULT_DATA_DIR} from '../paths.js'
import type {EmbeddedOptions} from './acting-user.js'
import type {Backend} from './backend.js'
import {loadProfiles, profileToken} from './profiles.js'

export interface TargetFlags {
  url?: string
  token?: string
  data?: string
  /** PostgreSQL URL of the embedded backend (`SVC_DATABASE_URL`); the data dir then holds only files. */
  'database-url'?: string
  as?: string
  profile?: string
}

/** Where commands go: a server (remote) or a local data dir (embedded). */
export type Target =
  | {kind: 'remote'; url: string; token?: string; as?: string}
  | {kind: 'embedded'; options: EmbeddedOptions}

/**
 * Picks the target: `--url` (+ `--token`) → remote; `--data` or `--database-url` → embedded;
 * `--profile` or the current saved profile; else the embedded default `./.svc`. Flags already
 * include their env vars. A target flag always wins over the current saved profile; with a remote
 * profile named by `--profile`, `--database-url` is a usage error (two targets).
 */
export function resolveTarget(flags: TargetFlags): Target {
  if (flags.url && flags.data) throw new SvcError('usage', 0, 'give either --url or --data, not both')
  const databaseUrl = flags['database-url']?.trim() || undefined
  if (databaseUrl) checkDatabaseUrl(databaseUrl)
  if (flags.url && databaseUrl) {
    throw new SvcError('usage', 0, 'give either --url (a server) or --database-url (the embedded backend over PostgreSQL), not both', undefined,
      'SVC_URL and SVC_DATABASE_URL stand for these flags: unset the one you do not mean')
  }
  if (flags.url) return {kind: 'remote', url: flags.url, token: flags.token}
  if (flags.data) return embedded(flags.data, flags.as, databaseUrl)
  const file = loadProfiles()
  const name = flags.profile ?? file.current
  const profile = name ? file.profiles[name] : undefined
  if (name && !profile && (flags.profile || !databaseUrl)) throw new SvcError('usage', 0, `no profile "${name}"`, undefined, 'list them with: svc profile list')
  if (profile?.url) {
    if (!databaseUrl) return {kind: 'remote', url: profile.url, token: flags.token ?? profileToken(name!), as: profile.as}
    if (flags.profile) {
      throw new SvcError('usage', 0, `profile "${name}" is a server (${profile.url}) and --database-url names a database: give one of them`)
    }
    // The current profile is only a default: the database URL given now wins.
    return embedded(DEFAULT_DATA_DIR, flags.as, databaseUrl)
  }
  if (profile?.data) return embedded(profile.data, flags.as ?? profile.as, databaseUrl)
  return embedded(DEFAULT_DATA_DIR, flags.as, databaseUrl)
}

function embedded(dataDir: string, as?: string, databaseUrl?: string): Target {
  return {kind: 'embedded', options: {dataDir, as, systemPromptsDir: process.env.SVC_SYSTEM_PROMPTS, ...(databaseUrl ? {databaseUrl} : {})}}
}

/** A usage error unless `url` is a PostgreSQL URL (`postgres://` or `postgresql://`). */
export function checkDatabaseUrl(url: string): void {
  if (!/^postgres(ql)?:\/\//i.test(url)) {
    throw new SvcError('usage', 0, 'the database URL must start with postgres:// or postgresql://', undefined,
      'leave --database-url / SVC_DATABASE_URL out to use the SQLite file of the data dir')
  }
}

/** The Backend of a target: real HTTP, or the whole app in-process over the data dir. */
export async function openBackend(target: Target): Promise<Backend> {
  if (target.kind === 'remote') {
    const {remoteBackend} = await import('./remote.js')
    return remoteBackend(target.url, target.token, target.as)
  }
  const {embeddedBackend} = await import('./embedded.js')
  return embeddedBackend(target.options)
}

/** `openBackend(resolveTarget(flags))`. */
export async function resolveBackend(flags: TargetFlags): Promise<Backend> {
  return openBackend(resolveTarget(flags))
}
