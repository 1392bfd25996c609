// @ts-check
// The server's compile error (422 `{source_code: ["line 3, column 7: Unexpected token\n> 3 | …"]}`,
// src/compile/errors.ts `describeIn`) as a problem for the code editor: its place (once), the
// message without the place, and the code frame (the lines after the first) kept as lines.

/**
 * `{message, line, column, frame}` from a 422 field message; the place is null when it has none.
 * @param {unknown} messages
 */
export function compileProblem(messages) {
  const text = (Array.isArray(messages) ? messages : [messages ?? '']).map(String).join('\n')
  const [first = '', ...rest] = text.split('\n')
  const at = /^line (\d+)(?:, column (\d+))?: /.exec(first)
  return {
    message: at ? first.slice(at[0].length) : first,
    line: at ? Number(at[1]) : null,
    column: at?.[2] ? Number(at[2]) : null,
    frame: rest.join('\n').replace(/\s+$/, ''),
  }
}
