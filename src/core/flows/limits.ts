/** Bounds of the flow runner (documented in docs/flows.md). Pure constants, no I/O. */
export const FLOW_LIMITS = {
  /** Steps in one program, nested steps included. */
  maxProgramSteps: 100,
  /** Depth of nested `if` branches. */
  maxNesting: 8,
  /** Steps one run may execute (no loops exist, so this is a second guard). */
  maxExecutedSteps: 500,
  /** Characters of one condition. */
  maxConditionLength: 1000,
  /** Size of the flow data (JSON) at any step, and so of a run's output. */
  maxDataBytes: 1024 * 1024,
  /** Length of one string built by `{placeholder}` interpolation. */
  maxStringLength: 256 * 1024,
  /** Size of a connector's response body. */
  maxResponseBytes: 1024 * 1024,
  /** One connector call (AbortSignal.timeout). */
  connectorTimeoutMs: 10_000,
  /** A whole run. */
  runTimeoutMs: 60_000,
  /** How long an action (or a manual/cron run-now) waits before answering `pending`. */
  actionWaitMs: 1500,
  /** Methods of one connector. */
  maxMethods: 50,
  /** JSON size of a resource's `fields`. */
  maxFieldsBytes: 256 * 1024,
  /** Size of a run's input (JSON). */
  maxInputBytes: 256 * 1024,
} as const

export type FlowLimits = {-readonly [K in keyof typeof FLOW_LIMITS]: number}
