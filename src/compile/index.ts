/**
 * Compiles an app once per distinct input: the key is a SHA-256 of (engine, css engine, source,
 * compiler versions), looked up in a persistent cache before any compiler is loaded. Compiles run
 * in worker processes (the server's compile pool, src/services/compiles/compile-pool.ts), never in this one.
 */
import {createHash} from 'node:crypto'
import {validation} from '../core/errors.js'
import {COMPILER_PACKAGES, engineSpec, type AppEngine, type CssEngine} from '../engines/index.js'
import type {AppBuild} from '../core/apps/types.js'
import {CompileError} from './errors.js'
import {packageVersion} from './libs.js'

/**
 * Bump when compiled output changes for the same input and packages (invalidates every cached
 * build). 2: Tailwind class candidates come from engines/css/tailwind-candidates.ts. 3: inline source
 * maps, game compat preludes (src/engines/), TypeScript in games. 4: styles may not read
 * files (compile/css-guard.ts: `url(/path?inline)` had inlined server files), the worker's fs allow-list.
 * 5: a js app is used as written (no longer compiled: a stored js build is replaced at its next write).
 */
const COMPILER_REVISION = '5'
export {COMPILER_PACKAGES}

let versionsKey: string | undefined
export function compilerVersions(): string {
  versionsKey ??= [COMPILER_REVISION, ...COMPILER_PACKAGES.map((p) => `${p}@${packageVersion(p)}`)].join(',')
  return versionsKey
}

export interface CompileInput {
  engine: AppEngine
  cssEngine: CssEngine
  source: string
}

export interface BuildCache {
  cachedBuild(hash: string): Promise<AppBuild | null>
  saveBuild(build: AppBuild): Promise<void>
}

export interface CompileResult extends AppBuild {
  /** `cached`: taken from the cache; `compiled`: compiled now; `none`: an engine used as-is. */
  status: 'cached' | 'compiled' | 'none'
}

export function buildHash(input: CompileInput): string {
  return createHash('sha256')
    .update(JSON.stringify([input.engine, input.cssEngine, input.source, compilerVersions()]))
    .digest('hex')
}

/** Where a compile runs: the server's compile pool (src/services/compiles/compile-pool.ts). */
export interface Compiler {
  compile(input: CompileInput, hash: string, account: string): Promise<AppBuild>
}

export interface CompileContext {
  compiler: Compiler
  /** Compiles under way by hash (one per server): a second write of the same input waits for the first. */
  inFlight: Map<string, Promise<AppBuild>>
  /** Whose compile it is: the pool takes accounts in turns and caps what each may have waiting (a 429). */
  account?: string
}

/**
 * The build of an app: from the cache when this exact input was compiled before (in any process
 * sharing the data dir), else compiled now and cached. Engines with `compile: 'none'` are used as-is.
 * A compile error is a 422 under `source_code` with line and column.
 */
export async function compileApp(input: CompileInput, cache: BuildCache, {compiler, inFlight, account = 'local'}: CompileContext): Promise<CompileResult> {
  const hash = buildHash(input)
  if (engineSpec(input.engine).compile === 'none') {
    return {hash, app_code: input.source, css_code: '', app_build_time: 0, css_build_time: 0, status: 'none'}
  }
  const hit = await cache.cachedBuild(hash)
  if (hit) return {...hit, status: 'cached'}
  let pending = inFlight.get(hash)
  if (!pending) {
    pending = compiler.compile(input, hash, account)
      .then(async (build) => {
        await cache.saveBuild(build)
        return build
      })
      .finally(() => inFlight.delete(hash))
    inFlight.set(hash, pending)
  }
  try {
    return {...(await pending), status: 'compiled'}
  } catch (error) {
    if (error instanceof CompileError) throw validation({source_code: [error.describeIn(input.source)]}, 'compile failed')
    throw error
  }
}
