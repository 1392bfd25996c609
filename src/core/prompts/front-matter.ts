/**
 * Front matter of system prompt files: a leading block between `---` lines holding `name:` and
 * optionally `placeholder:`. Splitting needs no parser; the block itself is parsed with the `yaml`
 * package (imported lazily: rendering never needs the metadata, only the body).
 */
const FRONT_MATTER_RE = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/

export interface Split {
  /** The YAML text between the delimiters, or null when the file has no front matter. */
  frontMatter: string | null
  /** Everything after the block: the content sent to the model. */
  body: string
}

export function splitFrontMatter(text: string): Split {
  const m = FRONT_MATTER_RE.exec(text)
  if (!m) return {frontMatter: null, body: text.replace(/^\uFEFF/, '')}
  return {frontMatter: m[1]!, body: text.slice(m[0].length)}
}

export interface PromptMeta {
  name?: string
  placeholder?: string
}

/** `name` and `placeholder` of a front-matter block; anything unparsable or mistyped is left out. */
export async function parseFrontMatter(frontMatter: string | null): Promise<PromptMeta> {
  if (frontMatter === null || frontMatter.trim() === '') return {}
  const {parse} = await import('yaml')
  let data: unknown
  try {
    data = parse(frontMatter, {maxAliasCount: 10})
  } catch {
    return {}
  }
  if (!data || typeof data !== 'object' || Array.isArray(data)) return {}
  const meta: PromptMeta = {}
  const {name, placeholder} = data as Record<string, unknown>
  if (typeof name === 'string' || typeof name === 'number') meta.name = String(name)
  if (typeof placeholder === 'string' || typeof placeholder === 'number') meta.placeholder = String(placeholder)
  return meta
}
