import {SvcError} from '../core/errors.js'
import {DEFAULT_DATA_DIR} from '../paths.js'
import type {EmbeddedOptions} from './acting-user.js'
import type {Backend} from './backend.js'
import {loadProfiles, profileToken} from './profiles.js'

export interface TargetFlags {
  url?: string
  token?: string
  data?: string
  as?: string
  profile?: string
}

/** Where commands go: a server (remote) or a local data dir (embedded). */
export type Target =
  | {kind: 'remote'; url: string; token?: string; as?: string}
  | {kind: 'embedded'; options: EmbeddedOptions}

/**
 * Picks the target: `--url` (+ `--token`) → remote; `--data` → embedded; `--profile` or the
 * current saved profile; else the embedded default `./.svc`. Flags already include their env vars.
 */
export function resolveTarget(flags: TargetFlags): Target {
  if (flags.url && flags.data) throw new SvcError('usage', 0, 'give either --url or --data, not both')
  if (flags.url) return {kind: 'remote', url: flags.url, token: flags.token}
  if (flags.data) return embedded(flags.data, flags.as)
  const file = loadProfiles()
  const name = flags.profile ?? file.current
  if (name) {
    const profile = file.profiles[name]
    if (!profile) throw new SvcError('usage', 0, `no profile "${name}"`, undefined, 'list them with: svc profile list')
    if (profile.url) return {kind: 'remote', url: profile.url, token: flags.token ?? profileToken(name), as: profile.as}
    if (profile.data) return embedded(profile.data, flags.as ?? profile.as)
  }
  return embedded(DEFAULT_DATA_DIR, flags.as)
}

function embedded(dataDir: string, as?: string): Target {
  return {kind: 'embedded', options: {dataDir, as, systemPromptsDir: process.env.SVC_SYSTEM_PROMPTS}}
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
