// The public methods editor's rules (platform-api.md "Public methods", src/core/dbs/public-methods.ts):
// a config of `method → true | options`, quick switches over it, and a plain-language summary
// of what it lets anyone on the internet do.

export const METHODS = ['list', 'get', 'search', 'create', 'update', 'delete', 'subscribe']
/** The methods a one-off call can try: `subscribe` is a stream (an EventSource), not an answer. */
export const CALLABLE = METHODS.filter((m) => m !== 'subscribe')
const VERBS = {list: 'list', get: 'read', search: 'search', create: 'create', update: 'change', delete: 'delete', subscribe: 'follow live changes to'}
const THIRD = {list: 'lists', get: 'reads', search: 'searches', create: 'creates', update: 'changes', delete: 'deletes', subscribe: 'follows live changes to'}
const VARIABLES = {'{cookie_key}': "the visitor's browser key (a cookie)", '{ip}': "the visitor's address", '{user_id}': 'the signed-in user id (empty for others)', '{user_name}': 'the signed-in user name (empty for others)'}
/** The field that holds who created a record when visitors see only their own. */
export const OWNER_FIELD = 'visitor'

const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v)
export const enabled = (config, m) => config?.[m] === true || isObject(config?.[m])
const options = (config, m) => (isObject(config?.[m]) ? config[m] : {})

/** A list as words: "a, b and c". */
const words = (list) => (list.length < 2 ? list.join('') : `${list.slice(0, -1).join(', ')} and ${list.at(-1)}`)

/** The config with a method switched on (keeping its options) or off (removed). */
export function toggleMethod(config, method, on) {
  const next = {...config}
  if (on) next[method] = enabled(config, method) ? config[method] : true
  else delete next[method]
  return next
}

/** Whether visitors see only their own records: every enabled reading/changing method is scoped. */
export function ownOnly(config) {
  const scoped = METHODS.filter((m) => m !== 'create' && enabled(config, m))
  return scoped.length > 0 && scoped.every((m) => typeof options(config, m).scope_by === 'string')
}

/** Turns "each visitor sees only their own records" on or off: create stamps the owner, the others are scoped by it. */
export function setOwnOnly(config, on) {
  const next = {}
  for (const m of METHODS) {
    if (!enabled(config, m)) continue
    const o = {...options(config, m)}
    if (m === 'create') {
      const auto = {...(o.auto_fields ?? {})}
      if (on) auto[OWNER_FIELD] = '{cookie_key}'
      else delete auto[OWNER_FIELD]
      if (Object.keys(auto).length) o.auto_fields = auto
      else delete o.auto_fields
    } else if (on) o.scope_by = OWNER_FIELD
    else if (o.scope_by === OWNER_FIELD) delete o.scope_by
    next[m] = Object.keys(o).length ? o : true
  }
  // Scoping needs an auto_fields entry: without create enabled, the owner is stamped by no one.
  if (on && !enabled(config, 'create')) next.create = {auto_fields: {[OWNER_FIELD]: '{cookie_key}'}}
  for (const [k, v] of Object.entries(config ?? {})) if (!METHODS.includes(k)) next[k] = v
  return next
}

/** What the config lets anyone on the internet do, in sentences. */
export function publicSummary(config, code) {
  const on = METHODS.filter((m) => enabled(config, m))
  if (!on.length) return ['Nobody outside your account can reach this database: no public method is enabled.']
  const out = [`Anyone on the internet can ${words(on.map((m) => VERBS[m]))} records in this database, without signing in.`]
  const scoped = on.filter((m) => options(config, m).scope_by)
  if (scoped.length) {
    const field = options(config, scoped[0]).scope_by
    const template = Object.values(config).map((c) => (isObject(c) ? c.auto_fields?.[field] : undefined)).find(Boolean)
    out.push(`Each visitor ${words(scoped.map((m) => THIRD[m]))} only their own records (the field ${field} holds ${VARIABLES[template] ?? template ?? 'their key'}).`)
  }
  for (const m of on) {
    const o = options(config, m)
    if (o.allowed_fields?.length) out.push(`${cap(VERBS[m])} may set only ${words(o.allowed_fields)}.`)
    if (o.required_fields?.length) out.push(`${cap(VERBS[m])} requires ${words(o.required_fields)}.`)
    for (const [field, template] of Object.entries(o.auto_fields ?? {})) if (field !== o.scope_by || m === 'create') out.push(`${cap(VERBS[m])} fills ${field} with ${VARIABLES[template] ?? template}, whatever the visitor sends.`)
    if (isObject(o.default_values) && Object.keys(o.default_values).length) out.push(`${cap(VERBS[m])} starts from ${JSON.stringify(o.default_values)}.`)
  }
  out.push(`Addresses: ${on.map((m) => `/svc/db/${code}/${m}`).join(', ')}.`)
  return out
}
const cap = (s) => s[0].toUpperCase() + s.slice(1)
