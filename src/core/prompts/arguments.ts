/**
 * The arguments of a prompt template for MCP's `prompts/list`: the variables the template reads from
 * outside (liquidjs static analysis), automatic ones left out. A variable is required when some
 * `{{ output }}` prints it without a `default` filter; one only used in tags (`{% if x %}`, loops) or
 * always behind `default` is optional. A template that does not parse has no arguments (a render
 * says what is wrong). What the prompt declares in `fields.arguments` wins over what is inferred
 * (declareArguments). Pure: no I/O.
 */
import {createRequire} from 'node:module'
import type * as LiquidModule from 'liquidjs'
import {AUTOMATIC_VARIABLES} from './render.js'

const liquidjs = createRequire(import.meta.url)('liquidjs') as typeof LiquidModule

export interface PromptArgument {
  name: string
  description: string
  required: boolean
}

/**
 * What an argument's name may be: a variable name. A template may read other roots
 * (`{{ ["any text"] }}`); they are not offered as arguments — an agent's client would show their
 * text as a name, and names are identifiers, never wrapped as workspace text (src/mcp/boundary.ts).
 */
export const ARGUMENT_NAME_RE = /^[A-Za-z_][\w-]{0,63}$/

/** At most this many arguments are reported (a template reads a few dozen at most). */
export const MAX_ARGUMENTS = 50

type Template = LiquidModule.Template & {children?: (partials: boolean, sync: boolean) => Generator<unknown, LiquidModule.Template[]>}

/** The templates under a tag (its branches and bodies); partials are never loaded (no file system). */
function childrenOf(template: Template): LiquidModule.Template[] {
  if (typeof template.children !== 'function') return []
  const run = template.children(false, true)
  let step = run.next()
  while (!step.done) step = run.next(step.value)
  return step.value ?? []
}

function* walk(templates: LiquidModule.Template[]): Generator<LiquidModule.Template> {
  for (const template of templates) {
    yield template
    yield* walk(childrenOf(template as Template))
  }
}

export function promptArguments(content: string, declared?: unknown): PromptArgument[] {
  return declareArguments(inferArguments(content), declared)
}

/** Longest declared description kept (the client shows it next to a text box). */
const MAX_DESCRIPTION = 500

/**
 * Applies a prompt's `fields.arguments` — `{"name": "description"}` or `{"name": {"description": …,
 * "required": true|false}}` — to the inferred arguments: a declared description or required flag
 * wins; a declared name the template does not read is added after the others. Anything else in
 * there (another type, a name that is not an identifier) is ignored: fields are user JSON.
 */
export function declareArguments(inferred: PromptArgument[], declared: unknown): PromptArgument[] {
  if (!declared || typeof declared !== 'object' || Array.isArray(declared)) return inferred
  const out = inferred.map((a) => ({...a}))
  for (const [name, value] of Object.entries(declared as Record<string, unknown>).slice(0, MAX_ARGUMENTS)) {
    if (!ARGUMENT_NAME_RE.test(name)) continue
    const spec = typeof value === 'string' ? {description: value} : value && typeof value === 'object' && !Array.isArray(value) ? value as Record<string, unknown> : null
    if (!spec) continue
    let argument = out.find((a) => a.name === name)
    if (!argument) {
      if (out.length >= MAX_ARGUMENTS) continue
      argument = {name, description: `Value of {{ ${name} }}`, required: false}
      out.push(argument)
    }
    if (typeof spec.description === 'string' && spec.description.trim()) argument.description = spec.description.trim().slice(0, MAX_DESCRIPTION)
    if (typeof spec.required === 'boolean') argument.required = spec.required
  }
  return out
}

function inferArguments(content: string): PromptArgument[] {
  const liquid = new liquidjs.Liquid({templates: {}, ownPropertyOnly: true, cache: false, locale: 'en-US'})
  let parsed: LiquidModule.Template[]
  let globals: string[]
  try {
    parsed = liquid.parse(content)
    globals = [...new Set(liquid.globalVariablesSync(parsed, {partials: false}))]
  } catch {
    return []
  }
  const automatic = new Set<string>(AUTOMATIC_VARIABLES)
  const names = globals.filter((name) => !automatic.has(name) && ARGUMENT_NAME_RE.test(name)).slice(0, MAX_ARGUMENTS)
  const printed = new Set<string>()
  const defaulted = new Map<string, string>()
  for (const node of walk(parsed)) {
    if (!(node instanceof liquidjs.Output)) continue
    const filters = node.value.filters
    const fallback = filters.find((f) => f.name === 'default')
    let roots: string[]
    try {
      roots = liquid.globalVariablesSync([node], {partials: false})
    } catch {
      continue
    }
    for (const name of roots) {
      if (!fallback) printed.add(name)
      else if (!defaulted.has(name)) defaulted.set(name, argumentText(fallback))
    }
  }
  return names.map((name) => {
    const required = printed.has(name)
    const fallback = defaulted.get(name)
    const description = required ? `Value of {{ ${name} }} in the template`
      : fallback !== undefined ? `Value of {{ ${name} }} (default ${fallback})` : `Optional: read by a condition or loop of the template`
    return {name, description, required}
  })
}

/** The text of a filter's first argument (`"Poland"`), shortened. */
function argumentText(filter: LiquidModule.Filter): string {
  const arg = filter.args[0] as unknown
  const token = Array.isArray(arg) ? arg[1] : arg
  const text = (token as {getText?: () => string} | undefined)?.getText?.() ?? ''
  return text.length > 60 ? `${text.slice(0, 57)}...` : text || 'given'
}
