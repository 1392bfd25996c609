/**
 * What both the contract's schemas (src/core/contract/dashboards.ts) and core's dashboard rules
 * say (src/core/dashboards/input.ts). Import-free, so core never imports the contract at run time.
 */

export const COMPANY_ONLY = 'is only for company dashboards (shared: true)'

/** A dashboard id as a path or a body gives it: a positive integer, or its decimal digits. */
export const DASHBOARD_ID_RE = /^[1-9][0-9]{0,14}$/
