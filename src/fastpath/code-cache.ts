/**
 * Loads a CommonJS bundle (dist/oclif.cjs) with a V8 code cache, which Node 20 has no other way
 * to use (`module.enableCompileCache` is Node 22.1+): compiling the ~480 KB bundle and the functions
 * a start runs is most of what loading it costs (docs/benchmarks.md). The first run of a Node
 * version writes the cache at exit, with every function that run compiled; later runs hand it to
 * V8, which checks it against the source and its own version and flags and ignores it on any
 * mismatch (then the bundle is compiled as usual). The cache goes beside the bundle when that dir
 * is writable, else into `$XDG_CACHE_HOME/svc` (`~/.cache/svc`); its name holds the Node version,
 * the architecture and the bundle's size and mtime, so a rebuild or another Node never reads a
 * stale one. `SVC_NO_CODE_CACHE=1` turns it off.
 *
 * The bundle's dynamic `import()` calls (oclif loads commands with them) are rewritten at build
 * time to `__svcImport()`, a parameter this loader passes: a script compiled by `vm` from a code
 * cache has no dynamic import of its own in Node 20.
 *
 * The `svc prompt render` fast path (dist/fastpath-prompt-render.cjs, liquidjs and better-sqlite3's
 * JavaScript bundled in) is loaded the same way by bin/run.js, through dist/code-cache.cjs.
 */
import {mkdirSync, readFileSync, renameSync, statSync, writeFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {homedir} from 'node:os'
import {basename, dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {Script} from 'node:vm'

type Importer = (specifier: string) => Promise<unknown>
type Wrapper = (exports: object, require: NodeRequire, module: {exports: object}, filename: string, dirname: string, svcImport: Importer) => void

function userCacheDir(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'svc')
}

function readIfAny(path: string): Buffer | undefined {
  try {
    return readFileSync(path)
  } catch {
    return undefined
  }
}

/** Writes atomically; false when the dir cannot be written (a read-only install). */
function writeAtomically(path: string, data: Buffer): boolean {
  try {
    mkdirSync(dirname(path), {recursive: true})
    const tmp = `${path}.${process.pid}.tmp`
    writeFileSync(tmp, data)
    renameSync(tmp, path)
    return true
  } catch {
    return false
  }
}

export interface CodeCacheOptions {
  /** Does the file's dynamic imports (`__svcImport`, see above); files that make none leave it out. */
  importer?: Importer
  /** Where the cache goes (before the user's cache dir): default the file's own dir. */
  cacheDir?: string
}

/** The source V8 compiles for a CommonJS file: its text in the function CommonJS modules run as. */
export function wrapCommonJs(source: string): string {
  return `(function (exports, require, module, __filename, __dirname, __svcImport) {${source}\n})`
}

/** The cache's file name for a file: its name, a hash of its path, the Node version and arch, its size and mtime. */
export function cacheFileName(filename: string): string {
  const stat = statSync(filename)
  return `${basename(filename)}.${hash(filename)}.${process.version}-${process.arch}-${stat.size}-${Math.trunc(stat.mtimeMs)}.v8cache`
}

/** The module.exports of the CommonJS file at `url`, compiled with a V8 code cache. */
export function loadWithCodeCache(url: URL, options: CodeCacheOptions = {}): Record<string, unknown> {
  const filename = fileURLToPath(url)
  const source = readFileSync(filename, 'utf8')
  const module = {exports: {}}
  const importer: Importer = options.importer ?? (() => Promise.reject(new Error(`${filename}: no dynamic import`)))
  const wrapped = wrapCommonJs(source)
  const run = (script: Script) => (script.runInThisContext() as Wrapper)(module.exports, createRequire(filename), module, filename, dirname(filename), importer)
  if (process.env.SVC_NO_CODE_CACHE) {
    run(new Script(wrapped, {filename}))
    return module.exports
  }
  const name = cacheFileName(filename)
  const first = join(options.cacheDir ?? dirname(filename), name)
  const fallback = join(userCacheDir(), name)
  const cachedData = readIfAny(first) ?? readIfAny(fallback)
  const script = new Script(wrapped, {filename, cachedData})
  run(script)
  if (!cachedData || script.cachedDataRejected) {
    // At exit the cache holds every function this run compiled (the whole start of a command). A
    // cache V8 refused (a damaged file, other V8 flags) is replaced.
    process.once('exit', () => {
      const data = script.createCachedData()
      if (!writeAtomically(first, data)) writeAtomically(fallback, data)
    })
  }
  return module.exports
}

/** A short, stable name for a path (FNV-1a, 32 bits): caches of two files never share a name. */
function hash(text: string): string {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return (h >>> 0).toString(36)
}
