// The layer table of docs/architecture.md, kept true: every import of `src/` (and, once switched on,
// of `console/src/`) is read with TypeScript's parser, and a run-time import that the table does not
// allow fails here, naming the file and the import. Type-only imports (`import type`, `export type`,
// `typeof import('…')`) vanish at run time and are not counted. Issue 38.
import {readdirSync, readFileSync, statSync} from 'node:fs'
import {dirname, join, relative, resolve} from 'node:path'
import ts from 'typescript'
import {beforeAll, describe, expect, it} from 'vitest'

const ROOT = join(import.meta.dirname, '..', '..')

/**
 * Which layers a layer may import at run time, besides itself and `src/paths.ts` (a leaf anyone
 * may read). docs/architecture.md "Layers" says the same in words: change both together.
 */
export const LAYERS: Record<string, readonly string[]> = {
  // Pure rules; the engine registry is data (names, lists, page specs) it may read.
  'core': ['engines'],
  // The API as schemas: zod and core's rules and names (core never imports the contract back).
  'core/contract': ['core', 'engines'],
  'engines': [],
  'store': ['core'],
  // The compilers a compile worker runs, and the compile cache key.
  'compile': ['core', 'engines'],
  'services': ['core', 'store', 'engines', 'compile'],
  // Transport: the app, its middleware and routes, and the two places that make a server (serve.ts, embedded.ts).
  'http': ['core', 'core/contract', 'services', 'store', 'engines', 'compile', 'mcp'],
  'client': ['core', 'core/contract', 'http'],
  'admin': ['core', 'store', 'client'],
  'mcp': ['client', 'core', 'core/contract', 'http'],
  'dev': ['client', 'core', 'core/contract', 'engines', 'compile', 'cli'],
  'workspace': ['client', 'core', 'core/contract'],
  'fastpath': ['client', 'core', 'cli', 'store'],
  'cli': ['client', 'core', 'core/contract', 'admin'],
  'commands': ['cli', 'client', 'core', 'core/contract', 'engines', 'admin', 'dev', 'mcp', 'workspace', 'fastpath', 'http', 'services'],
  'sdk': ['client', 'core', 'core/contract'],
  // Where the package's own folders are (system prompts, templates, the console build).
  'paths': [],
}

/** Imports a layer allows from these files only (the one door of each). */
export const ONLY_FROM: Record<string, Record<string, readonly string[]>> = {
  // The embedded backend opens the app in-process; nothing else of the client reaches the server.
  client: {http: ['src/client/embedded.ts']},
  // `svc serve` starts the server; `svc openapi` and `svc mcp` print the document; serve checks its egress flag
  // and its backup schedule; the admin backup commands run the backup service on a data dir or database (local admin work).
  commands: {
    http: ['src/commands/serve.ts', 'src/commands/openapi.ts', 'src/commands/mcp.ts'],
    services: ['src/commands/serve.ts', 'src/commands/admin/backup.ts', 'src/commands/admin/backup/verify.ts', 'src/commands/admin/restore.ts',
      'src/commands/admin/export.ts', 'src/commands/admin/import.ts'],
  },
  // The MCP endpoint the server mounts (src/http/routes/mcp.ts) is the only MCP code that uses the app.
  mcp: {http: ['src/mcp/http.ts', 'src/mcp/agent-backend.ts']},
  // The fast path reads a data dir through the store's small entries only.
  fastpath: {store: ['src/fastpath/embedded-render.ts']},
}

/**
 * The console (a client of the JSON API) may import from `src/` only the client package's entry
 * (`src/sdk.ts`: the typed client, and the zod-free helpers an editing client needs).
 */
export const CHECK_CONSOLE = true
export const CONSOLE_MAY_IMPORT = ['src/sdk.ts']

function files(dir: string, pattern: RegExp): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? files(path, pattern) : pattern.test(name) ? [path] : []
  })
}

/** The layer of a file under src/: its first folder (`core/contract` apart), or the file's own name at the top. */
export function layerOf(rel: string): string {
  const parts = rel.split('/')
  if (parts[0] !== 'src') return parts[0]!
  if (parts.length === 2) return parts[1]!.replace(/\.[jt]s$/, '')
  if (parts[1] === 'core' && parts[2] === 'contract') return 'core/contract'
  return parts[1]!
}

/** The run-time imports of a source (static, re-exports with values, dynamic `import('…')`), with their lines. */
export function runtimeImports(text: string, name = 'x.ts'): {spec: string; line: number}[] {
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true, name.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS)
  const found: {spec: string; line: number}[] = []
  const add = (node: ts.Node, spec: ts.Expression | undefined) => {
    if (spec && ts.isStringLiteralLike(spec)) found.push({spec: spec.text, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1})
  }
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node)) {
      const clause = node.importClause
      const typeOnly = clause && (clause.isTypeOnly || (!clause.name && clause.namedBindings && ts.isNamedImports(clause.namedBindings) &&
        clause.namedBindings.elements.length > 0 && clause.namedBindings.elements.every((e) => e.isTypeOnly)))
      if (!typeOnly) add(node, node.moduleSpecifier)
    } else if (ts.isExportDeclaration(node)) {
      const typeOnly = node.isTypeOnly || (node.exportClause && ts.isNamedExports(node.exportClause) &&
        node.exportClause.elements.length > 0 && node.exportClause.elements.every((e) => e.isTypeOnly))
      if (!typeOnly) add(node, node.moduleSpecifier)
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      add(node, node.arguments[0])
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/** Every run-time import of `src/` that the table does not allow, as `file:line: spec (from → to)`. */
export function layerViolations(root = ROOT): string[] {
  const problems: string[] = []
  for (const path of files(join(root, 'src'), /\.ts$/)) {
    const rel = relative(root, path)
    const from = layerOf(rel)
    const allowed = LAYERS[from]
    if (!allowed) {
      problems.push(`${rel}: layer "${from}" is not in the table (test/foundation/layers.test.ts LAYERS, docs/architecture.md)`)
      continue
    }
    for (const {spec, line} of runtimeImports(readFileSync(path, 'utf8'), path)) {
      if (!spec.startsWith('.')) continue
      const target = relative(root, resolve(dirname(path), spec))
      const to = layerOf(target)
      if (to === from || to === 'paths') continue
      const only = ONLY_FROM[from]?.[to]
      if (!allowed.includes(to) || (only && !only.includes(rel))) problems.push(`${rel}:${line}: ${spec} (${from} → ${to})`)
    }
  }
  return problems
}

/** Every import of `console/src` that reaches into `src/` other than the client package's entry. */
export function consoleViolations(root = ROOT): string[] {
  const problems: string[] = []
  for (const path of files(join(root, 'console', 'src'), /\.(js|ts|svelte)$/)) {
    const rel = relative(root, path)
    const text = readFileSync(path, 'utf8')
    const code = path.endsWith('.svelte') ? [...text.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]).join('\n') : text
    for (const {spec, line} of runtimeImports(code, path.replace(/\.svelte$/, '.ts'))) {
      if (!spec.startsWith('.')) continue
      const target = relative(root, resolve(dirname(path), spec))
      if (target.startsWith('src/') && !CONSOLE_MAY_IMPORT.includes(target)) problems.push(`${rel}:${line}: ${spec}`)
    }
  }
  return problems
}

describe('the layer table of docs/architecture.md', () => {
  let problems: string[] = []
  beforeAll(() => {
    problems = layerViolations()
  })

  it('every run-time import of src/ is one the table allows', () => {
    expect(problems).toEqual([])
  })

  it('core never imports the contract at run time, and the client never imports the store (issue 38)', () => {
    expect(problems.filter((p) => /\(core → core\/contract\)|\(client → store\)/.test(p))).toEqual([])
    expect(LAYERS.core).not.toContain('core/contract')
    expect(LAYERS.client).not.toContain('store')
  })

  it('reads imports as TypeScript does: type-only ones are not counted, dynamic ones are', () => {
    const text = [
      "import type {A} from '../store/a.js'",
      "import {type B} from '../store/b.js'",
      "export type {C} from '../store/c.js'",
      "type D = typeof import('../store/d.js')",
      "import {e} from '../store/e.js'",
      "export {f} from '../store/f.js'",
      "const g = await import('../store/g.js')",
      "import '../store/h.js'",
      '// import {i} from "../store/i.js"',
    ].join('\n')
    expect(runtimeImports(text).map((i) => i.spec)).toEqual(['../store/e.js', '../store/f.js', '../store/g.js', '../store/h.js'])
  })

  it.runIf(CHECK_CONSOLE)('the console imports from src/ only the client package', () => {
    expect(consoleViolations()).toEqual([])
  })
})
