/** Engine libraries and CSS browser builds, served once by the server (offline: never a CDN). */
import {existsSync, readFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {dirname, join} from 'node:path'
import {cssBrowserLibOf, SERVED_LIBS, type ServedLib} from '../engines/index.js'

const require = createRequire(import.meta.url)

/** The folder of an installed package (found from its resolved entry when `package.json` is not exported). */
export function packageDir(name: string): string {
  try {
    return dirname(require.resolve(`${name}/package.json`))
  } catch {
    let dir = dirname(require.resolve(name))
    while (dir !== dirname(dir)) {
      const pkg = join(dir, 'package.json')
      if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as {name?: string}).name === name) return dir
      dir = dirname(dir)
    }
    throw new Error(`cannot find package ${name}`)
  }
}

const versions = new Map<string, string>()
export function packageVersion(name: string): string {
  let v = versions.get(name)
  if (v === undefined) {
    try {
      v = (JSON.parse(readFileSync(join(packageDir(name), 'package.json'), 'utf8')) as {version: string}).version
    } catch {
      v = 'missing'
    }
    versions.set(name, v)
  }
  return v
}

export interface StaticLib {
  /** Package the file comes from (its version goes into the URL, so a long cache is safe). */
  pkg: string
  file: string
  type: string
}

/** Files under `/_svc/lib/:name`: the registry's served libraries (src/engines/). */
export const LIBS: Record<string, StaticLib> = Object.fromEntries(
  SERVED_LIBS.map((lib) => [lib.name, {pkg: lib.pkg, file: lib.file, type: 'text/javascript; charset=utf-8'}]))

/** `/_svc/lib/<name>?v=<version>`: the URL pages use (the version busts caches on upgrade). */
export const libUrl = (lib: ServedLib | string) => {
  const name = typeof lib === 'string' ? lib : lib.name
  return `/_svc/lib/${name}?v=${packageVersion(LIBS[name]!.pkg)}`
}

/** The URL of the CSS engine's browser build for an app's page, if it gets one. */
export function cssScriptUrl(engine: string, cssEngine: string): string | undefined {
  const lib = cssBrowserLibOf(engine, cssEngine)
  return lib ? libUrl(lib) : undefined
}

export const libPath = (name: string): string | null => {
  const lib = LIBS[name]
  return lib ? join(packageDir(lib.pkg), lib.file) : null
}
