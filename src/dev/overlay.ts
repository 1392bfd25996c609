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

/**
 * The terminal's report of a compile error, whole: `compile error in App.svelte:4:3: <message>`,
 * then the message's other lines (a link to the rule) and the code frame, indented. The absolute
 * path of the source is shortened to its file name; compiler preambles (`Transform failed with 1
 * error:`, `[plugin:...]`, `file:line:col: ERROR:`) are dropped.
 */
export function describeDevError(error: unknown, message: string, sourceFile: string): string {
  const e = error as {message?: string; frame?: string; loc?: {file?: string; line?: number; column?: number}} | undefined
  const file = sourceFile.split(/[\\/]/).pop()!
  let where = e?.loc?.line !== undefined ? `:${e.loc.line}:${(e.loc.column ?? 0) + 1}` : ''
  const text = stripAnsi(e?.message ?? message).split(sourceFile).join(file).replace(/\/@fs(?=\/)/g, '')
  const escaped = file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  const lines: string[] = []
  for (let line of text.split('\n').map((l) => l.trimEnd())) {
    line = line.replace(/^\s*\[[^\]]+\]\s*/, '').replace(/^.*Internal server error:\s*/, '')
    if (/^\s*Transform failed with \d+ errors?:?\s*$/i.test(line) || !line.trim()) continue
    const at = new RegExp(`^\\s*(?:\\S*/)?${escaped}(?::(\\d+):(\\d+))?:?\\s*(?:ERROR:\\s*)?`).exec(line)
    if (at) {
      if (!where && at[1]) where = `:${at[1]}:${at[2]}`
      line = line.slice(at[0].length)
    }
    // A frame's header (`╭─[ ../../App.jsx?n=2:3:16 ]`): the file name alone, and the place if none yet.
    line = line.replace(new RegExp(`[^\\s\\[]*?${escaped}(\\?[^\\s:\\]]*)?(?=:\\d+:\\d+)`), file)
    const inFrame = new RegExp(`${escaped}:(\\d+):(\\d+)`).exec(line)
    if (!where && inFrame) where = `:${inFrame[1]}:${inFrame[2]}`
    if (line.trim() && line !== lines.at(-1)) lines.push(line)
  }
  const frame = stripAnsi(e?.frame ?? '').split('\n').filter((l) => l.trim())
  const [first = 'compile failed', ...rest] = lines.filter((l) => !frame.some((f) => f.trim() === l.trim()))
  return [`compile error in ${file}${where}: ${first.trim()}`, ...rest.map((l) => `  ${l}`), ...frame.map((l) => `  ${l}`)].join('\n')
}
