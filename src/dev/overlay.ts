/**
 * `svc app dev`'s error overlay and terminal line for compile errors. Vite's own overlay tells the
 * reader to edit a `vite.config.js` the app folder does not have; this one names the app's file,
 * line and column, and goes away on the next successful update.
 */
export const OVERLAY_MODULE = '/@svc/overlay.js'

export function overlaySource(): string {
  return `
const box = document.createElement('div')
box.id = 'svc-dev-error'
box.setAttribute('role', 'alert')
box.style.cssText = 'position:fixed;inset:0;z-index:2147483647;background:rgba(20,0,0,.92);color:#fee;font:14px/1.5 ui-monospace,monospace;padding:24px;white-space:pre-wrap;overflow:auto'
function show(err) {
  const where = err.loc ? (err.loc.file ? err.loc.file.split('/').pop() : '') + ':' + err.loc.line + ':' + err.loc.column : ''
  box.textContent = 'Compile error' + (where ? ' in ' + where : '') + '\\n\\n' + (err.message || '') + (err.frame ? '\\n\\n' + err.frame : '') +
    '\\n\\nFix the file and save: the page updates by itself. The same message is in the terminal running svc app dev.'
  if (!box.isConnected) document.body.appendChild(box)
}
if (import.meta.hot) {
  import.meta.hot.on('vite:error', (payload) => show(payload.err || {}))
  import.meta.hot.on('vite:afterUpdate', () => box.remove())
  import.meta.hot.on('vite:beforeFullReload', () => box.remove())
}
`
}

const stripAnsi = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '')

/** One terminal line for a Vite error: `compile error in App.svelte:4:3: Unexpected token`. */
export function describeDevError(error: unknown, message: string, sourceFile: string): string {
  const e = error as {message?: string; loc?: {file?: string; line?: number; column?: number}; id?: string; plugin?: string} | undefined
  const file = sourceFile.split(/[\\/]/).pop()!
  const loc = e?.loc?.line !== undefined ? `:${e.loc.line}:${(e.loc.column ?? 0) + 1}` : ''
  const text = stripAnsi(e?.message ?? message).replace(/^\[[^\]]+\]\s*/, '').split('\n').map((l) => l.trim()).filter(Boolean)
    .filter((l) => !l.includes(sourceFile))[0] ?? stripAnsi(message).split('\n')[0]!.replace(/^.*Internal server error:\s*/, '')
  return `compile error in ${file}${loc}: ${text.replace(/^.*?App\.[a-z]+(:\d+:\d+)?:?\s*/, '')}`
}
