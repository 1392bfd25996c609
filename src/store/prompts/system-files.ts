/**
 * System prompt files: `:code.agent.md` or `:code.md` in the package's `system-prompts/` folder
 * and the server's `--system-prompts DIR` (later folders win). Read on each request, so an edited
 * file applies at once.
 */
import {readdir, readFile} from 'node:fs/promises'
import {join} from 'node:path'
import {parseFrontMatter, splitFrontMatter, type PromptMeta} from '../../core/prompts/front-matter.js'
import type {Kind} from '../../core/prompts/types.js'
import {isPromptCode} from '../../core/prompts/validate.js'

export interface SystemFile {
  code: string
  kind: Kind
  /** The file's text after the front matter. */
  content: string
  /** The raw front matter block (parse it with `systemMeta`). */
  frontMatter: string | null
  /** Index of the folder in `dirs` (higher wins). */
  dirIndex: number
}

async function readIfExists(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8')
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR') return null
    throw error
  }
}

/** The winning file of `code`: the last folder holding one; within a folder `.agent.md` before `.md`. */
export async function findSystemFile(dirs: string[], code: string): Promise<SystemFile | null> {
  if (!isPromptCode(code)) return null
  for (let i = dirs.length - 1; i >= 0; i--) {
    for (const [suffix, kind] of [['.agent.md', 'agent'], ['.md', 'chat']] as const) {
      const text = await readIfExists(join(dirs[i]!, code + suffix))
      if (text === null) continue
      const {frontMatter, body} = splitFrontMatter(text)
      return {code, kind, content: body, frontMatter, dirIndex: i}
    }
  }
  return null
}

export interface SystemPromptInfo {
  code: string
  kind: Kind
  name: string
  placeholder: string | null
  /** `package` for the first folder, `server` for a `--system-prompts` folder. */
  source: 'package' | 'server'
}

/** Name and placeholder of a file (front matter), the code when it has no name. */
export async function systemMeta(file: SystemFile): Promise<PromptMeta & {name: string}> {
  const meta = await parseFrontMatter(file.frontMatter)
  return {...meta, name: meta.name ?? file.code}
}

/** Every system prompt code of every folder, resolved as `findSystemFile` does, sorted by code. */
export async function listSystemFiles(dirs: string[]): Promise<SystemPromptInfo[]> {
  const codes = new Set<string>()
  for (const dir of dirs) {
    let names: string[] = []
    try {
      names = await readdir(dir)
    } catch {
      continue
    }
    for (const name of names) {
      const code = name.endsWith('.agent.md') ? name.slice(0, -9) : name.endsWith('.md') ? name.slice(0, -3) : null
      if (code !== null && isPromptCode(code)) codes.add(code)
    }
  }
  const out: SystemPromptInfo[] = []
  for (const code of [...codes].sort()) {
    const file = await findSystemFile(dirs, code)
    if (!file) continue
    const meta = await systemMeta(file)
    out.push({code, kind: file.kind, name: meta.name, placeholder: meta.placeholder ?? null, source: file.dirIndex === 0 ? 'package' : 'server'})
  }
  return out
}
