/**
 * What an app engine declares (docs/apps.md "Adding an engine"). Every other module asks the
 * registry (./index.ts) instead of naming an engine. No I/O here: compilers and plugins are
 * imported lazily by the functions that need them.
 */

/** How the server turns the source into the page's code. */
export type CompileKind =
  /** A component compiled by Vite with the engine's plugin, mounted by `mountEntry`. */
  | 'vite'
  /** A game bundled by esbuild, the engine library served apart (`game`). */
  | 'game'
  /** Used as-is: the page itself, or a classic script served as written. */
  | 'none'

/** An engine library served once under `/_svc/lib/<name>` (offline: never a CDN). */
export interface ServedLib {
  /** File name under `/_svc/lib/`. */
  name: string
  /** Package the file comes from (its version goes into the URL). */
  pkg: string
  file: string
}

export interface GameSpec {
  lib: ServedLib
  /** Bare imports the game may write (`import kaplay from 'kaplay'`); all are mapped to `lib`. */
  importNames: readonly string[]
  /** Code run before the game: imports the library from `libSpecifier`, sets its globals, the compat bridges. */
  prelude(libSpecifier: string): string
}

export interface ViteSpec {
  /** The Vite plugins of the engine (lazy-imported). */
  plugins(): Promise<unknown[]>
  /** The entry module that mounts the component from `sourceImport` into `#svc-app`. */
  mountEntry(sourceImport: string): string
  /** Packages the dev server pre-bundles. */
  devOptimize?: readonly string[]
  /**
   * The source's blocks: `style` (`<style>` blocks, checked before the compile), `sfc-src` (also
   * `<script|style|template src>`, refused), `none` (a module with no blocks).
   */
  blocks: 'style' | 'sfc-src' | 'none'
  /** The file name the source is compiled under (its extension picks the language: `App.tsx`). */
  compileFile: string
}

export interface EngineSpec {
  name: string
  /** File the source is kept under (in a build folder, a `svc app pull`/`dev` folder, a workspace). */
  sourceFile: string
  /** The library and its major version the page runs (`svc app create --help`, docs/apps.md). */
  library: string
  /** The language the source is compiled as (TypeScript: types stripped, never checked). */
  language: 'js' | 'ts' | 'tsx' | 'html' | 'svelte+ts' | 'vue+ts'
  /** `svc app create --file`: extensions (no dot) that always mean this engine. */
  extensions: readonly string[]
  /** Extensions this engine claims when `recognizes` says the content is its own (checked in registry order). */
  byContent?: {extensions: readonly string[]; recognizes(source: string): boolean; /** Lower is asked first. */ rank: number}
  /** npm packages whose versions are part of the build key (a change recompiles). */
  packages: readonly string[]
  compile: CompileKind
  /** Bare imports an app of this engine may write (and their sub-paths); none for a classic script. */
  imports: readonly string[]
  vite?: ViteSpec
  game?: GameSpec
  page: {
    /** `module`: `<script type=module>`; `script`: a classic script; `html`: the source is the page. */
    script: 'module' | 'script' | 'html'
    /** The page gets the CSS engine's framework (Tailwind). */
    cssFramework: boolean
    /** A full-window canvas: no margins, no scroll bars. */
    fullscreenCanvas: boolean
  }
  /** Starter of `svc app create --template <name>`: templates/<name>/<sourceFile>. */
  template: string
  /** What code written for other versions of the library runs here (docs/apps.md). */
  compat: readonly string[]
}

/** A CSS engine (`css_engine`). */
export interface CssEngineSpec {
  name: string
  /** A script the page loads (Tailwind's browser build). */
  browserLib?: ServedLib
  /** Compiles the CSS the source uses on the server (lazy-imports its compiler). */
  compile?(source: string): Promise<string>
  /** Loads the compiler once per process (so build times measure the build only). */
  prepare?(): Promise<void>
  packages: readonly string[]
  /** `svc app dev` styles the page with this CSS engine instead (no server compile on each save). */
  devAs?: string
}
