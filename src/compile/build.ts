/**
 * One compile, run inside a compile worker process (src/compile/worker.ts): Vite for svelte, vue
 * and react, esbuild for games, Tailwind for the css engine. Never imported by the server itself.
 */
import {CSS_FRAMEWORK_ENGINES} from '../core/apps/validate.js'
import type {AppBuild} from '../core/apps/types.js'
import type {CompileInput} from './index.js'

const ms = (start: bigint) => Math.max(0, Math.round(Number(process.hrtime.bigint() - start) / 1e6))

/** Imports the compilers an engine needs (once per process), so build times measure the build only. */
export async function prepare(engine: CompileInput['engine'], cssEngine: CompileInput['cssEngine']): Promise<void> {
  if (engine === 'svelte' || engine === 'vue' || engine === 'react') await (await import('./vite.js')).prepareVite(engine)
  if (engine === 'kaboom' || engine === 'phaser') await import('esbuild')
  if (cssEngine === 'tailwind' && CSS_FRAMEWORK_ENGINES.includes(engine)) await import('@tailwindcss/node')
}

export async function compileNow(input: CompileInput, hash: string): Promise<AppBuild> {
  const {engine, cssEngine, source} = input
  let appCode = ''
  let cssCode = ''
  await prepare(engine, cssEngine)
  const started = process.hrtime.bigint()
  if (engine === 'svelte' || engine === 'vue' || engine === 'react') {
    const {viteCompile} = await import('./vite.js')
    const out = await viteCompile(engine, source)
    appCode = out.js
    cssCode = out.css.replace(/\/\*\$vite\$:\d+\*\/\s*/g, '')
  } else if (engine === 'kaboom' || engine === 'phaser') {
    const {gameCompile} = await import('./games.js')
    appCode = await gameCompile(engine, source)
  }
  const appTime = ms(started)
  let cssTime = 0
  if (cssEngine === 'tailwind' && CSS_FRAMEWORK_ENGINES.includes(engine)) {
    const {tailwindCompile} = await import('./tailwind.js')
    const cssStarted = process.hrtime.bigint()
    cssCode = (await tailwindCompile(source)) + cssCode
    cssTime = ms(cssStarted)
  }
  return {hash, app_code: appCode, css_code: cssCode, app_build_time: appTime, css_build_time: cssTime}
}
