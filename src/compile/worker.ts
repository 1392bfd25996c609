/**
 * A compile worker: a child process of the server (src/services/compiles/compile-pool.ts) that runs one compile at a
 * time. A compiler that crashes (rolldown's native stack overflow is a SIGSEGV), runs out of its
 * heap (`--max-old-space-size`) or runs too long takes down this process only.
 */
import {setPriority} from 'node:os'
import {basename, dirname, join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {compileNow, prepare} from './build.js'
import {CompileError} from './errors.js'
import {confineReads} from './fs-jail.js'
import {COMPILER_PACKAGES, type CompileInput} from './index.js'
import {packageDir} from './libs.js'

/** The niceness of a compile worker (0 is the server's; 19 the lowest). */
export const COMPILE_NICENESS = 10

export type WorkerRequest = {type: 'compile'; id: number; input: CompileInput; hash: string}

export type WorkerReply =
  | {id: number; prepared: true}
  | {id: number; ok: true; build: import('../core/apps/types.js').AppBuild}
  | {id: number; ok: false; compileError: {message: string; line?: number; column?: number}}
  | {id: number; ok: false; internal: string}

const send = (reply: WorkerReply) => process.send?.(reply)

// Below the server in the scheduler's eyes (nice 10): a compile uses the cores the server's requests
// leave, so one account's builds cannot slow other accounts' requests (bench/noisy-neighbour.mjs).
// Threads the compilers start later inherit it. A quiet machine still gives a compile every core.
try {
  setPriority(COMPILE_NICENESS)
} catch {}

/** What a compile may read besides its own build folder: the installed packages and this package's code. */
function readableRoots(): string[] {
  const own = fileURLToPath(new URL('../..', import.meta.url))
  const modules = new Set<string>()
  for (const name of COMPILER_PACKAGES) {
    let dir = packageDir(name)
    while (basename(dir) !== 'node_modules' && dir !== dirname(dir)) dir = dirname(dir)
    if (basename(dir) === 'node_modules') modules.add(dir)
  }
  return [join(own, 'dist'), join(own, 'src'), join(own, 'package.json'), join(own, 'node_modules'), ...modules]
}

// The compilers see no file of the server (its data dir, /etc, /proc): reads outside these
// folders fail (compile/fs-jail.ts). Each compile adds its own build folder while it runs.
confineReads(readableRoots())

process.on('message', (message: WorkerRequest) => {
  // Importing the compilers (~0.8 s, once per worker) is not the source's doing: the pool starts
  // the compile's time limit when this says the compilers are loaded.
  prepare(message.input.engine, message.input.cssEngine)
    .then(() => send({id: message.id, prepared: true}))
    .then(() => compileNow(message.input, message.hash))
    .then(
    (build) => send({id: message.id, ok: true, build}),
    (error: unknown) => {
      if (error instanceof CompileError) send({id: message.id, ok: false, compileError: {message: error.message, line: error.line, column: error.column}})
      else send({id: message.id, ok: false, internal: error instanceof Error ? error.message : String(error)})
    },
  )
})
// The server went away (exit, crash, kill -9): nothing is left to compile for.
process.on('disconnect', () => process.exit(0))
