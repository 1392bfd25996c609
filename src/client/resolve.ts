import {SvcError} from '../core/errors.js'
import {DEFAULT_DATA_DIR} from '../paths.js'
import type {Backend} from './backend.js'
import {loadProfiles, profileToken} from './profiles.js'

export interface TargetFlags {
  url?: string
  token?: string
  data?: string
  as?: string
  profile?: string
}

/**
 * Picks the backend: `--url` (+ `--token`) → remote; `--data` → embedded; `--profile` or the
 * current saved profile; else the embedded default `./.svc`. Flags already include their env vars.
 */
export async function resolveBackend(flags: TargetFlags, openEmbedded?: EmbeddedFactory): Promise<Backend> {
  if (flags.url && flags.data) throw new SvcError('usage', 0, 'give either --url or --data, not both')
  if (flags.url) {
    const {remoteBackend} = await import('./remote.js')
    return remoteBackend(flags.url, flags.token)
  }
  if (flags.data) return embedded(flags.data, flags.as, openEmbedded)
  const file = loadProfiles()
  const name = flags.profile ?? file.current
  if (name) {
    const profile = file.profiles[name]
    if (!profile) throw new SvcError('usage', 0, `no profile "${name}"`, undefined, 'list them with: svc profile list')
    if (profile.url) {
      const {remoteBackend} = await import('./remote.js')
      return remoteBackend(profile.url, flags.token ?? profileToken(name), profile.as)
    }
    if (profile.data) return embedded(profile.data, flags.as ?? profile.as, openEmbedded)
  }
  return embedded(DEFAULT_DATA_DIR, flags.as, openEmbedded)
}

/** Opens an embedded backend; the fast path of `svc prompt render` passes a leaner one (prompts routes only). */
export type EmbeddedFactory = (options: import('./embedded.js').EmbeddedOptions) => Promise<Backend>

async function embedded(dataDir: string, as?: string, openEmbedded?: EmbeddedFactory): Promise<Backend> {
  const options = {dataDir, as, systemPromptsDir: process.env.SVC_SYSTEM_PROMPTS}
  if (openEmbedded) return openEmbedded(options)
  const {embeddedBackend} = await import('./embedded.js')
  return embeddedBackend(options)
}
