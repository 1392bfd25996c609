// The server's compile error (422 `{source_code: ["line 3, column 7: Unexpected token"]}`) as a
// problem at a line and column for the code area.

/** `{message, line, column}` from a 422 field message, the position null when it has none. */
export function compileProblem(messages) {
  const message = [].concat(messages ?? []).join('\n')
  const at = /line (\d+), column (\d+)/.exec(message)
  return {message, line: at ? Number(at[1]) : null, column: at ? Number(at[2]) : null}
}
