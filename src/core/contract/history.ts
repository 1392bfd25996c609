/** The journal: history, versions and restores (decisions.md "History, backups and live feeds"; docs/history.md). */
import {ACTOR_TYPES, DOORS, JOURNAL_KINDS, JOURNAL_OPS} from '../journal/types.js'
import {z, Timestamp} from './common.js'

const time = z.string().max(64).openapi({description: 'ISO 8601 date-time', example: '2026-01-31T12:00:00Z'})

export const HistoryQuery = z.object({
  kind: z.enum(JOURNAL_KINDS).optional().openapi({description: 'Only entries of this kind'}),
  id: z.string().max(200).optional().openapi({description: 'Only this resource (its id)'}),
  db: z.string().max(200).optional().openapi({description: 'Records: only those of this db (id or code)'}),
  op: z.enum(JOURNAL_OPS).optional(),
  door: z.enum(DOORS).optional(),
  client: z.string().max(100).optional().openapi({description: 'Door `mcp`: only this MCP client'}),
  actor_id: z.string().max(100).optional(),
  since: time.optional().openapi({description: 'Entries at or after this time'}),
  until: time.optional().openapi({description: 'Entries at or before this time'}),
  before: z.string().max(20).optional().openapi({description: 'A bookmark: entries before it (the next page)'}),
  limit: z.string().max(6).optional().openapi({description: '1-100 (default 20)'}),
})

export const Actor = z.object({
  type: z.enum(ACTOR_TYPES),
  id: z.string().nullable(),
  name: z.string().nullable(),
}).openapi('Actor')

export const HistoryEntry = z.object({
  bookmark: z.string().openapi({description: 'Sorts in journal order'}),
  kind: z.enum(JOURNAL_KINDS),
  id: z.string(),
  op: z.enum(JOURNAL_OPS),
  door: z.enum(DOORS),
  client: z.string().nullable().openapi({description: 'The MCP client\'s name (door `mcp`)'}),
  actor: Actor,
  at: Timestamp,
  summary: z.string(),
  db_id: z.number().int().optional().openapi({description: 'Records: their db'}),
  request_id: z.string().nullable().optional(),
}).openapi('HistoryEntry')

export const HistoryEntryDetail = HistoryEntry.extend({
  version: z.unknown().openapi({description: 'The resource as the API answers it after this write; null for a delete'}),
  previous: z.unknown().openapi({description: 'The version before (null when the journal holds none; for a delete the deleted version)'}),
  diff: z.object({changed: z.array(z.string()), patch: z.string()}).optional()
    .openapi({description: 'With `diff=1`: from `previous` to `version` (a line diff of prompt content and app source, of the JSON for the rest)'}),
}).openapi('HistoryEntryDetail')

export const HistoryEntryQuery = z.object({diff: z.string().max(5).optional().openapi({description: '`1`: add the diff from the previous version'})})

export const RestoreSinceBody = z.object({
  since: time,
  door: z.enum(DOORS).optional(),
  client: z.string().max(100).optional(),
  actor_id: z.string().max(100).optional(),
  kind: z.enum(JOURNAL_KINDS).optional(),
  dry_run: z.boolean().optional().openapi({description: 'Answer what would be restored; write nothing'}),
}).openapi('RestoreSinceBody')

export const RestoreSinceResult = z.object({
  restored: z.array(z.object({
    kind: z.enum(JOURNAL_KINDS), id: z.string(), bookmark: z.string().nullable().openapi({description: 'The restore\'s own entry (null in a dry run)'}),
    to: z.enum(['version', 'absent']).openapi({description: '`absent`: created after `since`, so removed'}),
  })),
  conflicts: z.array(z.object({kind: z.enum(JOURNAL_KINDS), id: z.string(), reason: z.string(), fields: z.unknown().optional()})),
}).openapi('RestoreSinceResult')

export const RestoreResult = z.object({
  bookmark: z.string().openapi({description: 'The restore\'s own entry: restore the entry before it to undo'}),
  kind: z.enum(JOURNAL_KINDS),
  id: z.string(),
  version: z.unknown().openapi({description: 'The resource as the API answers it now (null when the restore removed it)'}),
}).openapi('RestoreResult')
