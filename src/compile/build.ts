/**
 * One compile, run inside a compile worker process (src/compile/worker.ts): the compiler the
 * registry names for the engine (Vite, esbuild for games), then the CSS engine's compile. Never
 * imported by the server itself.
 */
import {cssCompileOf, engineSpec} from '../engines/index.js'
import type {AppBuild} from '../core/apps/types.js'
import type {CompileInput} from './index.js'

const ms = (start: bigint) => Math.max(0, Math.round(Number(process.hrtime.bigint() - start) / 1e6))

/** Imports the compilers an engine needs (once per process), so build times measure the build only. */
export async function prepare(engine: CompileInput['engine'], cssEngine: CompileInput['cssEngine']): Promise<void> {
  const kind = engineSpec(engine).compile
  if (kind === 'vite') await (await import('./vite.js')).prepareVite(engine)
  if (kind === 'game') await import('esbuild')
  await cssCompileOf(engine, cssEngine)?.prepare?.()
}

export async function compileNow(input: CompileInput, hash: string): Promise<AppBuild> {
  const {engine, cssEngine, source} = input
  let appCode = ''
  let cssCode = ''
  await prepare(engine, cssEngine)
  const started = process.hrtime.bigint()
  const kind = engineSpec(engine).compile
  if (kind === 'vite') {
    const {viteCompile} = await import('./vite.js')
    const out = await viteCompile(engine, source)
    appCode = out.js
    cssCode = out.css.replace(/\/\*\$vite\$:\d+\*\/\s*/g, '')
  } else if (kind === 'game') {
    const {gameCompile} = await import('./games.js')
    appCode = await gameCompile(engine, source)
  }
  const appTime = ms(started)
  let cssTime = 0
  const css = cssCompileOf(engine, cssEngine)
  if (css) {
    const cssStarted = process.hrtime.bigint()
    cssCode = (await css.compile!(source)) + cssCode
    cssTime = ms(cssStarted)
  }
  return {hash, app_code: appCode, css_code: cssCode, app_build_time: appTime, css_build_time: cssTime}
}
