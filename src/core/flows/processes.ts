
export const PROCESS_STATUSES = ['pending', 'finished', 'error'] as const
export type ProcessStatus = (typeof PROCESS_STATUSES)[number]
export const TRIGGERS = ['action', 'cron', 'manual', 'db_change'] as const
export type Trigger = (typeof TRIGGERS)[number]

/** As the API shows it: the contract's (src/core/contract/flows.ts). */
export type {FlowProcessView as FlowProcess} from '../contract/flows.js'
/** One run with its trace (core/flows/trace.ts), as `getFlowProcess` answers it. */
export type {FlowProcessDetailView as FlowProcessDetail} from '../contract/flows.js'

/** The query of `GET /connect/flow_processes.json` as its schema (ProcessQuery) parsed it, defaults filled. */
export type {ProcessFilter} from '../contract/flows.js'

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID_RE.test(value)
