import {badRequest} from '../errors.js'
import type {JsonObject} from './data.js'

export const PROCESS_STATUSES = ['pending', 'finished', 'error'] as const
export type ProcessStatus = (typeof PROCESS_STATUSES)[number]
export const TRIGGERS = ['action', 'cron', 'manual'] as const
export type Trigger = (typeof TRIGGERS)[number]

/** As the API shows it: the contract's (src/core/contract/flows.ts). */
export type {FlowProcessView as FlowProcess} from '../contract/flows.js'
import type {FlowProcessView as FlowProcess} from '../contract/flows.js'

export interface ProcessFilter {
  status?: ProcessStatus
  flow_code?: string
  trigger?: Trigger
  cron_id?: number
  app_id?: string
  limit: number
  offset: number
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID_RE.test(value)

const intParam = (value: string | undefined, name: string, min: number, max: number, fallback: number): number => {
  if (value === undefined || value === '') return fallback
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) throw badRequest(`${name} must be an integer from ${min} to ${max}`)
  return Number(value)
}

/** The query of `GET /connect/flow_processes.json`; 400 for a bad value. */
export function parseProcessFilter(query: Record<string, string | undefined>): ProcessFilter {
  const filter: ProcessFilter = {limit: intParam(query.limit, 'limit', 1, 100, 20), offset: intParam(query.offset, 'offset', 0, 1_000_000_000, 0)}
  if (query.status) {
    if (!(PROCESS_STATUSES as readonly string[]).includes(query.status)) throw badRequest(`status must be one of ${PROCESS_STATUSES.join(', ')}`)
    filter.status = query.status as ProcessStatus
  }
  if (query.trigger) {
    if (!(TRIGGERS as readonly string[]).includes(query.trigger)) throw badRequest(`trigger must be one of ${TRIGGERS.join(', ')}`)
    filter.trigger = query.trigger as Trigger
  }
  if (query.flow_code) filter.flow_code = query.flow_code.slice(0, 64)
  if (query.cron_id) filter.cron_id = intParam(query.cron_id, 'cron_id', 1, Number.MAX_SAFE_INTEGER, 0)
  if (query.app_id) {
    if (!isUuid(query.app_id)) throw badRequest('app_id must be a UUID')
    filter.app_id = query.app_id
  }
  return filter
}
