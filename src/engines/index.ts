/**
 * The engine registry: the one place that knows the app engines and CSS engines (docs/apps.md
 * "Adding an engine": one file here plus its tests). Everything else asks these functions.
 */
import {none} from './css/none.js'
import {tailwindAll} from './css/tailwind-all.js'
import {tailwind} from './css/tailwind.js'
import {html} from './html.js'
import {js} from './js.js'
import {kaboom} from './kaboom.js'
import {phaser} from './phaser.js'
import {react} from './react.js'
import {svelte} from './svelte.js'
import type {CssEngineSpec, EngineSpec, ServedLib} from './types.js'
import {vue} from './vue.js'

export type {CompileKind, CssEngineSpec, EngineSpec, GameSpec, ServedLib, ViteSpec} from './types.js'

/** In the order `--engine` lists them; the first is the default of a new app. */
const ENGINES: readonly EngineSpec[] = [svelte, vue, react, js, html, kaboom, phaser]
/** The first is the default of a new app. */
const CSS: readonly CssEngineSpec[] = [tailwindAll, tailwind, none]

export const APP_ENGINES = ENGINES.map((e) => e.name) as [string, ...string[]]
export type AppEngine = string
export const CSS_ENGINES = CSS.map((e) => e.name) as [string, ...string[]]
export type CssEngine = string
export const DEFAULT_APP_ENGINE = APP_ENGINES[0]
export const DEFAULT_CSS_ENGINE = CSS_ENGINES[0]

const byName = new Map(ENGINES.map((e) => [e.name, e]))
const cssByName = new Map(CSS.map((e) => [e.name, e]))

/** The engine of a name the schemas have checked (an unknown name is a programming error). */
export function engineSpec(name: string): EngineSpec {
  const spec = byName.get(name)
  if (!spec) throw new Error(`unknown app engine ${name}`)
  return spec
}

export function cssEngineSpec(name: string): CssEngineSpec {
  const spec = cssByName.get(name)
  if (!spec) throw new Error(`unknown css engine ${name}`)
  return spec
}

/**
 * What a client may know of the engines (`GET /svc/engines.json`): names in the registry's order
 * (the first is the default), the language a source is written in, and whether the server builds
 * it (a build whose time is `app_build_time`). The console reads this instead of naming engines.
 */
export function engineFacts() {
  return {
    app_engines: ENGINES.map((e) => ({name: e.name, library: e.library, language: e.language, source_file: e.sourceFile, builds: e.compile === 'vite' || e.compile === 'game'})),
    css_engines: CSS.map((c) => ({name: c.name})),
    default_app_engine: DEFAULT_APP_ENGINE,
    default_css_engine: DEFAULT_CSS_ENGINE,
  }
}

/** The CSS engine `svc app dev` styles a page with instead of `name` (an unknown name is kept). */
export const devCssEngine = (name: string): string => cssByName.get(name)?.devAs ?? name

export const isAppEngine = (name: unknown): name is AppEngine => typeof name === 'string' && byName.has(name)

/** File the source of an engine is kept under. */
export const sourceFileOf = (name: string): string => engineSpec(name).sourceFile

/**
 * The names an app folder's source may have, the kept name first: the kept name's stem with each
 * extension the engine is written in (`App.jsx`, then `App.tsx`, `App.js`, ... for react).
 */
export function sourceFileNames(name: string): string[] {
  const spec = engineSpec(name)
  const stem = spec.sourceFile.replace(/\.[^.]+$/, '')
  return [...new Set([spec.sourceFile, ...[...spec.extensions, ...(spec.byContent?.extensions ?? [])].map((ext) => `${stem}.${ext}`)])]
}

/** Every name a source file of any engine may have in an app folder (`App.tsx`, `game.ts`, ...). */
export const SOURCE_FILE_NAMES: ReadonlySet<string> = new Set(ENGINES.flatMap((e) => sourceFileNames(e.name)))

/** Every source file name an app folder may hold. */
export const SOURCE_FILES: readonly string[] = [...new Set(ENGINES.map((e) => e.sourceFile))]

/** The CSS engine's compile for an app engine, when its page gets the framework and the CSS engine compiles. */
export function cssCompileOf(engine: string, cssEngine: string): CssEngineSpec | null {
  const css = cssEngineSpec(cssEngine)
  return engineSpec(engine).page.cssFramework && css.compile ? css : null
}

/** The CSS engine's script for the page of an app engine (Tailwind's browser build), if any. */
export function cssBrowserLibOf(engine: string, cssEngine: string): ServedLib | null {
  return engineSpec(engine).page.cssFramework ? cssByName.get(cssEngine)?.browserLib ?? null : null
}

/** Every package whose version is part of the build key. */
export const COMPILER_PACKAGES: readonly string[] = [...new Set([...ENGINES, ...CSS].flatMap((e) => e.packages))]

/** Files the server serves under `/_svc/lib/` (engine libraries, CSS browser builds). */
export const SERVED_LIBS: readonly ServedLib[] = [
  ...ENGINES.flatMap((e) => (e.game ? [e.game.lib] : [])),
  ...CSS.flatMap((c) => (c.browserLib ? [c.browserLib] : [])),
]

/** The game library a bare import names (`phaser`, `kaboom/…`), for any game engine. */
export function gameLibOfImport(spec: string): {engine: EngineSpec; lib: ServedLib} | null {
  const name = spec.split('/')[0]!
  for (const engine of ENGINES) if (engine.game?.importNames.includes(name)) return {engine, lib: engine.game.lib}
  return null
}

/** Packages whose folders the Vite engines load from. */
export const VITE_PACKAGES: readonly string[] = [...new Set(ENGINES.filter((e) => e.compile === 'vite').flatMap((e) => e.packages))]

/**
 * The engine a source file is written for, when `--engine` is not given: an extension only one
 * engine claims (`.svelte`, `.tsx`, `.html`), else the first engine that recognizes the content
 * (by rank: games first), else the engine whose own extension it is (`.js` → js).
 */
export function engineOfFile(path: string, source: string): AppEngine | null {
  const ext = /\.([a-z]+)$/i.exec(path)?.[1]?.toLowerCase()
  if (!ext) return null
  const own = ENGINES.filter((e) => e.extensions.includes(ext))
  if (own.length === 1 && !ENGINES.some((e) => e.byContent?.extensions.includes(ext))) return own[0]!.name
  const candidates = ENGINES.filter((e) => e.byContent?.extensions.includes(ext)).sort((a, b) => a.byContent!.rank - b.byContent!.rank)
  for (const e of candidates) if (e.byContent!.recognizes(source)) return e.name
  return own[0]?.name ?? null
}

/** A bare import an app of `engine` may write (`svelte/store`, `@vue/reactivity`), no `..`, no query. */
export function importAllowed(engine: string, spec: string): boolean {
  if (/[?#\\]/.test(spec) || /(^|\/)\.\.?(\/|$)/.test(spec)) return false
  return engineSpec(engine).imports.some((name) =>
    name.endsWith('/*') ? spec.startsWith(name.slice(0, -1)) && spec.length > name.length - 1 : spec === name || spec.startsWith(`${name}/`))
}

/** `svelte, vue, react` — the packages an engine provides, for messages. */
export const importsOf = (engine: string): string => engineSpec(engine).imports.map((n) => n.replace('/*', '')).join(', ') || 'none'
