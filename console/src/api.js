// The console speaks the same JSON API as the CLI, carried by the HttpOnly session cookie.
export class ApiError extends Error {
  constructor(status, body) {
    super(body?.error ?? (body && typeof body === 'object' ? Object.entries(body).map(([k, v]) => `${k}: ${[].concat(v).join(', ')}`).join('; ') : `HTTP ${status}`))
    this.status = status
    this.body = body
  }

  /** The 422 field map (`{field: [messages]}`, or the `fields` member of `{error, fields}`), else {}. */
  get fields() {
    if (this.status !== 422 || !this.body || typeof this.body !== 'object') return {}
    const map = this.body.fields && typeof this.body.fields === 'object' ? this.body.fields : this.body
    return Object.fromEntries(Object.entries(map).filter(([k]) => k !== 'error').map(([k, v]) => [k, [].concat(v).map(String)]))
  }
}

export async function api(method, path, body) {
  const res = await fetch(path, {
    method, credentials: 'same-origin',
    headers: body === undefined ? {accept: 'application/json'} : {accept: 'application/json', 'content-type': 'application/json'},
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  if (res.status === 401) {
    location.href = `/svc/login?next=${encodeURIComponent(location.pathname + location.hash)}`
    throw new ApiError(401, {error: 'signed out'})
  }
  const text = await res.text()
  let json
  try {
    json = text ? JSON.parse(text) : undefined
  } catch {
    json = undefined
  }
  if (!res.ok) throw new ApiError(res.status, json)
  return json
}

/** A rendered prompt and the layer of the cascade that won (X-Svc-Prompt-Source). */
export async function renderPrompt(code, vars) {
  const query = new URLSearchParams(vars)
  const res = await fetch(`/svc/prompt/${encodeURIComponent(code)}.md?${query}`, {credentials: 'same-origin'})
  const text = await res.text()
  if (!res.ok) {
    let message = text
    try {
      message = JSON.parse(text).error ?? text
    } catch {}
    throw new ApiError(res.status, {error: message})
  }
  return {text, source: res.headers.get('x-svc-prompt-source') ?? 'unknown', extra: res.headers.get('x-svc-prompt-extra')}
}
