import {chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import {homedir} from 'node:os'
import {join} from 'node:path'

/** A saved target: a server URL (token kept apart in credentials.json) or a local data dir. */
export interface Profile {
  url?: string
  data?: string
  as?: string
}

interface ProfilesFile {
  current?: string
  profiles: Record<string, Profile>
}

/** `$SVC_CONFIG_DIR`, else `$XDG_CONFIG_HOME/svc`, else `~/.config/svc`. */
export function configDir(): string {
  if (process.env.SVC_CONFIG_DIR) return process.env.SVC_CONFIG_DIR
  return join(process.env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'svc')
}

const profilesPath = () => join(configDir(), 'profiles.json')
const credentialsPath = () => join(configDir(), 'credentials.json')

function readJson<T>(path: string, fallback: T): T {
  if (!existsSync(path)) return fallback
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T
  } catch {
    return fallback
  }
}

/** Writes atomically (temp file + rename) with the given mode. */
function writeJson(path: string, value: unknown, mode: number): void {
  mkdirSync(configDir(), {recursive: true, mode: 0o700})
  const tmp = `${path}.${process.pid}.tmp`
  writeFileSync(tmp, JSON.stringify(value, null, 2) + '\n', {mode})
  chmodSync(tmp, mode)
  renameSync(tmp, path)
}

export function loadProfiles(): ProfilesFile {
  const file = readJson<ProfilesFile>(profilesPath(), {profiles: {}})
  return {current: file.current, profiles: file.profiles ?? {}}
}

export function saveProfile(name: string, profile: Profile, token?: string): void {
  const file = loadProfiles()
  file.profiles[name] = profile
  file.current = name
  writeJson(profilesPath(), file, 0o600)
  const credentials = readJson<Record<string, string>>(credentialsPath(), {})
  if (token) credentials[name] = token
  else delete credentials[name]
  writeJson(credentialsPath(), credentials, 0o600)
}

export function removeProfile(name: string): boolean {
  const file = loadProfiles()
  if (!file.profiles[name]) return false
  delete file.profiles[name]
  if (file.current === name) file.current = Object.keys(file.profiles)[0]
  writeJson(profilesPath(), file, 0o600)
  const credentials = readJson<Record<string, string>>(credentialsPath(), {})
  delete credentials[name]
  writeJson(credentialsPath(), credentials, 0o600)
  return true
}

export function useProfile(name: string): boolean {
  const file = loadProfiles()
  if (!file.profiles[name]) return false
  file.current = name
  writeJson(profilesPath(), file, 0o600)
  return true
}

export function profileToken(name: string): string | undefined {
  return readJson<Record<string, string>>(credentialsPath(), {})[name]
}
