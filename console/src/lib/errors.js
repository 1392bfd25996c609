// Reading the client's errors (SvcError: status, message, details) on a screen.

/** The 422 field map of an error (`{field: [messages]}`), else {}. */
export function fieldsOf(error) {
  if (error?.status !== 422 || !error.details || typeof error.details !== 'object') return {}
  const map = error.details.fields && typeof error.details.fields === 'object' ? error.details.fields : error.details
  return Object.fromEntries(Object.entries(map).filter(([k]) => k !== 'error').map(([k, v]) => [k, [].concat(v).map(String)]))
}
