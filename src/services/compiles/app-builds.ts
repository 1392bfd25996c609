/**
 * The build of an app write: compile, take from the content-addressed cache, or keep the stored
 * build (docs/apps.md "Compiling"). The routes only call `buildFor`; the compilers themselves are
 * imported at the first compile.
 */
import type {AppBuild, AppData, AppRecord} from '../../core/apps/types.js'
import {isSvcError, validation} from '../../core/errors.js'
import type {Compiler} from '../../compile/index.js'
import {engineSpec} from '../../engines/index.js'
import {sizeText} from '../../core/quotas.js'

const buildBytes = (build: AppBuild) => Buffer.byteLength(build.app_code) + Buffer.byteLength(build.css_code)

/** Where builds are kept by the hash of what they were compiled from (the store's apps repository). */
export interface BuildStore {
  cachedBuild(hash: string): Promise<AppBuild | null>
  saveBuild(build: AppBuild): Promise<void>
}

/** `buildFor` over a build store and a compile pool, with builds capped at `maxBuildBytes` (quota app_build_bytes). */
export function appBuilds(apps: BuildStore, maxBuildBytes: number, compiler: Compiler) {
  const inFlight = new Map<string, Promise<AppBuild>>()
  /** The compile cache, keeping no build over the cap (a refused build is not stored anywhere). */
  const cache = {
    cachedBuild: (hash: string) => apps.cachedBuild(hash),
    saveBuild: async (build: AppBuild) => {
      if (buildBytes(build) <= maxBuildBytes) await apps.saveBuild(build)
    },
  }
  /** A build over the cap is refused under source_code (issue 24 M7: builds had no cap). */
  const capped = (build: AppBuild) => {
    const bytes = buildBytes(build)
    if (bytes <= maxBuildBytes) return
    throw validation({source_code: [`compiles to ${sizeText(bytes)} of JavaScript and CSS; a build may be at most ${sizeText(maxBuildBytes)} (app_build_bytes)`]},
      'build too large')
  }

  /**
   * Compiles unless the stored build belongs to this exact input (same hash). When only the
   * compilers changed since (an upgrade) and the source did not, a failing recompile keeps the
   * stored build: a write of other fields never fails on a compile of an unchanged source.
   */
  async function buildFor(input: AppData, accountId: number, current?: AppRecord): Promise<{build: AppBuild; status: string}> {
    const {buildHash, compileApp} = await import('../../compile/index.js')
    const compileInput = {engine: input.app_engine, cssEngine: input.css_engine, source: input.source_code}
    const stored = (): {build: AppBuild; status: string} => {
      const {build_hash: hash, app_code, css_code, app_build_time, css_build_time} = current!
      return {build: {hash, app_code, css_code, app_build_time, css_build_time}, status: 'unchanged'}
    }
    if (current && current.build_hash === buildHash(compileInput)) return stored()
    const sameSource = !!current && current.app_engine === input.app_engine && current.css_engine === input.css_engine &&
      current.source_code === input.source_code
    try {
      const {status, ...build} = await compileApp(compileInput, cache, {compiler, inFlight, account: String(accountId)})
      capped(build)
      return {build, status}
    } catch (error) {
      if (sameSource && isSvcError(error) && error.code === 'validation') return stored()
      throw error
    }
  }

  /**
   * What a browser would refuse in a source used as written (a classic script: js), as one line for
   * `X-Svc-Warning`, else null. Only a warning: the source is saved and served as written.
   */
  async function warningFor(input: Pick<AppData, 'app_engine' | 'source_code'>): Promise<string | null> {
    const spec = engineSpec(input.app_engine)
    if (spec.compile !== 'none' || spec.page.script !== 'script') return null
    const {classicScriptWarning} = await import('../../compile/script.js')
    const warning = classicScriptWarning(input.source_code)
    // A header value: printable ASCII, bounded.
    return warning && warning.replace(/[^\x20-\x7e]/g, '?').slice(0, 400)
  }

  return {buildFor, warningFor}
}
