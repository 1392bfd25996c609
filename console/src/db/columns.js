// The grid's columns as each user arranged them, saved on the server (GET/PATCH
// /svc/me/settings.json under `grid:<db id>:<table>`): {hidden: [names], order: [names]}.
// The id column always shows (it links to the record).

export const settingKey = (dbId, table) => `grid:${dbId}:${table ?? ''}`

/** The columns to show: the saved order first (names that still exist), then the others in their default order; hidden ones left out. */
export function arrangeColumns(columns, pref) {
  const order = (Array.isArray(pref?.order) ? pref.order : []).filter((c) => columns.includes(c))
  const hidden = new Set((Array.isArray(pref?.hidden) ? pref.hidden : []).filter((c) => c !== 'id'))
  return [...new Set([...order, ...columns])].filter((c) => !hidden.has(c))
}

/** Every column in the user's order (hidden ones included), for the columns panel. */
export const orderedColumns = (columns, pref) => arrangeColumns(columns, {order: pref?.order})

/** The preference with a column shown or hidden. */
export function showColumn(pref, column, shown) {
  const hidden = new Set(pref?.hidden ?? [])
  if (shown || column === 'id') hidden.delete(column)
  else hidden.add(column)
  return {...pref, hidden: [...hidden]}
}

/** The preference with a column moved one place earlier (-1) or later (+1) among all columns. */
export function moveColumn(columns, pref, column, delta) {
  const order = orderedColumns(columns, pref)
  const at = order.indexOf(column)
  const to = at + delta
  if (at < 0 || to < 0 || to >= order.length) return pref
  ;[order[at], order[to]] = [order[to], order[at]]
  return {...pref, order}
}
