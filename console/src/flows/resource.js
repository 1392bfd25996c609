// @ts-check
// The parts of a flow or connector resource the screens show (its `fields` is free JSON).

/**
 * The steps of a flow's program.
 * @param {{fields: Record<string, unknown>}} flow
 * @returns {any[]}
 */
export const programOf = (flow) => (Array.isArray(flow.fields.program) ? flow.fields.program : [])

/**
 * The methods of a connector.
 * @param {{fields: Record<string, unknown>}} connector
 * @returns {{http_method: string, path: string, name: string, public?: boolean}[]}
 */
export const methodsOf = (connector) => (Array.isArray(connector.fields.methods) ? connector.fields.methods : [])
