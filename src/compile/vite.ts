/** Registry engines with `compile: 'vite'` through Vite's `build()` in-process (lazy-imported), one temp folder per compile. */
import {mkdtemp, rm, writeFile} from 'node:fs/promises'
import {tmpdir} from 'node:os'
import {join, resolve as resolvePath, sep} from 'node:path'
import {engineSpec, importAllowed, importsOf, VITE_PACKAGES} from '../engines/index.js'
import {cssReadError} from './css-guard.js'
import {CompileError, importedPackage, localImportError, locate} from './errors.js'
import {allowReads, disallowReads} from './fs-jail.js'
import {packageDir} from './libs.js'
import {withOwnSourceMap} from './sourcemap.js'

export type ViteEngine = string
/** Vite query suffixes that would read a file into the bundle (any case, after `?`, `&` or `#`). */
const DANGEROUS_QUERY = /[?&#](raw|url|inline|worker|sharedworker|no-inline|import|init|direct|src)(?![\w-])/i
/** Module ids Vite runs through its CSS plugin: style files and the style blocks of svelte and vue. */
const CSS_ID = /\.(css|less|sass|scss|styl|stylus|pcss|postcss|sss)($|[?#])|[?&](type=style|lang\.)/i

const enginePlugins = (engine: ViteEngine): Promise<unknown[]> => engineSpec(engine).vite!.plugins()

/**
 * Keeps a build inside its folder: a bare import must be one of the app runtimes (resolved from
 * this package, not from the temp folder), a relative or absolute import must stay in the build
 * folder, and no `?raw`-style query may read a file into the bundle.
 */
function guard(root: string, engine: ViteEngine) {
  const anchor = join(packageDir('vite'), '..', '..', 'package.json')
  const modules = packageFolders()
  return {
    name: 'svc-guard',
    enforce: 'pre' as const,
    async resolveId(this: any, source: string, importer: string | undefined, options: any) {
      if (source.startsWith('\0') || source.startsWith('virtual:')) return null
      if (DANGEROUS_QUERY.test(source)) throw new CompileError('this import is not allowed in an app')
      const bare = !source.startsWith('.') && !source.startsWith('/') && !/^[A-Za-z]:/.test(source)
      if (bare) {
        if (importer && importer.includes(`${sep}node_modules${sep}`)) return null
        if (!importAllowed(engine, source)) throw new CompileError(`import "${importedPackage(source)}" is not available (a ${engine} app may import ${importsOf(engine)})`)
        return this.resolve(source, anchor, {...options, skipSelf: true})
      }
      return null
    },
    load(id: string) {
      if (id.startsWith('\0')) return null
      const path = id.split(/[?#]/)[0]!
      if (DANGEROUS_QUERY.test(id)) throw new CompileError('this import is not allowed in an app')
      if (path.startsWith(root + sep) || modules.some((dir) => path.startsWith(dir + sep))) return null
      throw new CompileError('an app may import only its engine\'s packages')
    },
    // Vite's CSS plugin reads what url(), image-set() and @import name through its own resolver and
    // fs (not through `load`): every stylesheet is checked before that plugin runs (compile/css-guard.ts).
    transform(code: string, id: string) {
      if (!CSS_ID.test(id)) return null
      const error = cssReadError(code)
      if (error) throw new CompileError(error.message)
      return null
    },
  }
}

/** The folders of the installed packages (real paths): the only place imports may load from besides the build folder. */
const packageFolders = (): string[] => {
  const dirs = new Set<string>()
  for (const name of VITE_PACKAGES) {
    try {
      dirs.add(resolvePath(packageDir(name), '..'))
    } catch {}
  }
  return [...dirs]
}

/**
 * The style blocks of a svelte or vue source, checked where the author wrote them (a 422 with line
 * and column); Vue blocks may not name a `src` file either.
 */
export function styleReadError(engine: ViteEngine, source: string): CompileError | null {
  const at = (index: number, message: string) => {
    const before = source.slice(0, index)
    return new CompileError(message, before.split('\n').length, index - before.lastIndexOf('\n'))
  }
  const blocks = engineSpec(engine).vite!.blocks
  if (blocks === 'sfc-src') {
    const src = /<(script|style|template)\b[^>]*?\ssrc\s*=/i.exec(source)
    if (src) return at(src.index, `<${src[1]} src>: a single-file app cannot use other files; put that code in this file`)
  }
  if (blocks === 'none') return null
  for (const block of source.matchAll(/(<style\b[^>]*>)([\s\S]*?)(<\/style\s*>|$)/gi)) {
    const error = cssReadError(block[2]!)
    if (error) return at(block.index + block[1]!.length + error.index, error.message)
  }
  return null
}

/**
 * Import forms Vite expands by reading the file system, refused in the app's own modules before
 * Vite's glob, dynamic-import-vars and asset-URL plugins see them (they run after this normal-phase
 * plugin; svelte, vue and JSX are already compiled to JavaScript here). The message names no file.
 */
const FILE_SYSTEM_IMPORTS: [RegExp, string][] = [
  [/\bimport\s*\.\s*meta\s*(\.\s*glob|\[)/, 'import.meta.glob is not allowed in an app'],
  [/\bimport\s*\.\s*meta\s*\.\s*url\b/, 'import.meta.url is not allowed in an app'],
  [/\bimport\s*\(\s*(?!(['"])[^'"`$]*\1\s*\))/, 'import() takes a fixed string in an app (no variables or templates)'],
]

function noFileSystemImports(root: string) {
  return {
    name: 'svc-no-fs-imports',
    transform(code: string, id: string) {
      if (id.startsWith('\0') || !id.split('?')[0]!.startsWith(root + sep)) return null
      for (const [pattern, message] of FILE_SYSTEM_IMPORTS) if (pattern.test(code)) throw new CompileError(message)
      return null
    },
  }
}

/** Loads Vite and the engine's plugin (once per process), so build times measure the build only. */
export async function prepareVite(engine: ViteEngine): Promise<void> {
  await Promise.all([import('vite'), enginePlugins(engine)])
}

export interface ViteOutput {
  js: string
  css: string
}

/** Builds one component into one ES module and one stylesheet. */
export async function viteCompile(engine: ViteEngine, source: string): Promise<ViteOutput> {
  if (/@import\b/.test(source) && engineSpec(engine).vite!.blocks !== 'none') {
    throw new CompileError('@import is not supported in app styles (the CSS engine provides the framework)')
  }
  const local = localImportError(source) ?? styleReadError(engine, source)
  if (local) throw local
  const {build} = await import('vite')
  const root = await mkdtemp(join(tmpdir(), 'svc-build-'))
  const vite = engineSpec(engine).vite!
  const file = vite.compileFile
  allowReads(root)
  try {
    await writeFile(join(root, file), source)
    await writeFile(join(root, 'main.js'), vite.mountEntry(`./${file}`))
    const result = await build({
      configFile: false,
      envFile: false,
      root,
      cacheDir: join(root, '.vite'),
      logLevel: 'silent',
      mode: 'production',
      publicDir: false,
      // An inline PostCSS config: Vite never looks for a postcss.config.* above the build folder.
      css: {postcss: {plugins: []}},
      plugins: [guard(resolvePath(root), engine), ...(await enginePlugins(engine)), noFileSystemImports(resolvePath(root))] as any,
      build: {
        write: false,
        minify: true,
        // A map of the app's own file is inlined below (compile/sourcemap.ts).
        sourcemap: true,
        target: 'es2022',
        cssCodeSplit: false,
        assetsInlineLimit: 0,
        modulePreload: false,
        reportCompressedSize: false,
        copyPublicDir: false,
        rollupOptions: {input: join(root, 'main.js'), output: {codeSplitting: false} as any},
      },
    } as any)
    const outputs = (Array.isArray(result) ? result : [result]) as {output: any[]}[]
    let js = ''
    let css = ''
    for (const out of outputs) {
      for (const item of out.output) {
        if (item.type === 'chunk') js += withOwnSourceMap(item.code, item.map, file, source)
        else if (typeof item.fileName === 'string' && item.fileName.endsWith('.css')) css += String(item.source)
      }
    }
    return {js, css}
  } catch (error) {
    if (error instanceof CompileError) throw error
    throw locate(error, file).within(source)
  } finally {
    await rm(root, {recursive: true, force: true})
    disallowReads(root)
  }
}
