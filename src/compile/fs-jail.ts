/**
 * The compile worker reads only its allow-list: the build folder of the compile under way, the
 * installed packages (node_modules) and this package's own files. Every read function of `fs` and
 * `fs/promises` (open, readFile, streams, readdir, readlink, copy) refuses any other path with
 * EACCES, for the compilers' JavaScript (Vite, its plugins, Tailwind, PostCSS). The ESM named
 * exports are re-synced so `import {readFile} from 'node:fs/promises'` sees the same guard.
 *
 * Native code reads on its own (rolldown's Rust core, esbuild's Go process): those reads are kept
 * in by the resolvers (compile/vite.ts, compile/games.ts), which refuse every path outside the same
 * allow-list before a file is loaded. Node 20's permission model (`--experimental-permission`)
 * cannot be used instead: it refuses native addons, and rolldown is one.
 */
import fs from 'node:fs'
import {syncBuiltinESMExports} from 'node:module'
import {resolve, sep} from 'node:path'
import {fileURLToPath} from 'node:url'

const roots = new Set<string>()

const real = (path: string): string => {
  try {
    return fs.realpathSync.native(path)
  } catch {
    return path
  }
}

/** Adds a folder to the allow-list (its real path too, if it is reached through a link). */
export function allowReads(dir: string): void {
  const abs = resolve(dir)
  roots.add(abs)
  roots.add(real(abs))
}

/** Removes a folder from the allow-list (a build folder, once its compile is done). */
export function disallowReads(dir: string): void {
  const abs = resolve(dir)
  roots.delete(abs)
  roots.delete(real(abs))
}

const inside = (path: string) => {
  for (const root of roots) if (path === root || path.startsWith(root + sep)) return true
  return false
}

/** Whether `target` (a path, a file URL, a Buffer or a file descriptor) may be read. */
export function readable(target: unknown): boolean {
  if (typeof target === 'number') return true
  let path: string
  if (typeof target === 'string') path = target
  else if (target instanceof URL) {
    if (target.protocol !== 'file:') return false
    path = fileURLToPath(target)
  } else if (Buffer.isBuffer(target)) path = target.toString()
  else return false
  if (path.includes('\0')) return false
  const abs = resolve(path)
  // A link inside the allow-list must not lead out of it (a missing file keeps its path: its read fails anyway).
  return inside(abs) && inside(real(abs))
}

const denied = (_path: unknown) => Object.assign(new Error('EACCES: permission denied (outside the compile allow-list)'), {code: 'EACCES', errno: -13, syscall: 'open'})

const SYNC = ['openSync', 'readFileSync', 'readdirSync', 'opendirSync', 'readlinkSync', 'createReadStream'] as const
const CALLBACK = ['open', 'readFile', 'readdir', 'opendir', 'readlink'] as const
const PROMISES = ['open', 'readFile', 'readdir', 'opendir', 'readlink'] as const
const COPY_SYNC = ['copyFileSync', 'cpSync'] as const
const COPY_CALLBACK = ['copyFile', 'cp'] as const
const COPY_PROMISES = ['copyFile', 'cp'] as const

let installed = false

/** Makes this process's `fs` refuse reads outside the allow-list (once per process). */
export function confineReads(initial: string[]): void {
  for (const dir of initial) allowReads(dir)
  if (installed) return
  installed = true
  const anyFs = fs as any
  const promises = fs.promises as any
  for (const name of SYNC) {
    const original = anyFs[name]
    anyFs[name] = function (path: unknown, ...rest: unknown[]) {
      if (!readable(path)) throw denied(path)
      return original.call(this, path, ...rest)
    }
  }
  for (const name of COPY_SYNC) {
    const original = anyFs[name]
    anyFs[name] = function (from: unknown, ...rest: unknown[]) {
      if (!readable(from)) throw denied(from)
      return original.call(this, from, ...rest)
    }
  }
  for (const name of [...CALLBACK, ...COPY_CALLBACK]) {
    const original = anyFs[name]
    const patched = function (this: unknown, path: unknown, ...rest: unknown[]) {
      if (!readable(path)) {
        const callback = rest.findLast((a) => typeof a === 'function') as ((e: Error) => void) | undefined
        if (callback) return void process.nextTick(callback, denied(path))
        throw denied(path)
      }
      return original.call(this, path, ...rest)
    }
    // util.promisify(fs.readFile) etc. keep working: the custom promisified form is guarded too.
    if (original.__promisify__) patched.__promisify__ = original.__promisify__
    anyFs[name] = patched
  }
  for (const name of [...PROMISES, ...COPY_PROMISES]) {
    const original = promises[name]
    promises[name] = async function (path: unknown, ...rest: unknown[]) {
      if (!readable(path)) throw denied(path)
      return original.call(this, path, ...rest)
    }
  }
  syncBuiltinESMExports()
}
