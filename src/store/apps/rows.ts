/**
 * The app row as both drivers read and write it: the columns and these statements are the same in
 * SQLite and PostgreSQL (booleans 0/1 integers, JSON as text); each driver keeps its own locking.
 */
import {randomBytes} from 'node:crypto'
import {validation} from '../../core/errors.js'
import type {AppActionTarget, AppBuild, AppData, AppRecord, AppSummary} from './types.js'

export interface AppRow {
  id: string; account_id: number; name: string; url_code: string; description: string; app_engine: string
  css_engine: string; source_code: string; public: number; active: number; db_code: string | null
  show_in_module: string | null; prompt: string | null; actions: string; fields: string; config: string
  app_code: string; css_code: string; build_hash: string; app_build_time: number; css_build_time: number
  token: string; created_by_id: number; updated_by_id: number | null; created_at: string; updated_at: string
}

/** ISO 8601 with an explicit offset (`+00:00`), as the spec words it. */
export const nowWithOffset = () => new Date().toISOString().replace('Z', '+00:00')

export function toAppRecord(row: AppRow): AppRecord {
  return {
    ...row,
    public: !!row.public,
    active: !!row.active,
    actions: JSON.parse(row.actions),
    fields: JSON.parse(row.fields),
    config: JSON.parse(row.config),
  }
}

/**
 * The columns of an app list: every column but the build (`app_code`, `css_code`: up to
 * app_build_bytes each app) and the token. A list never reads a build (issue 24 M7: three 12 MB
 * builds made a guest's list take 1.25 s and doubled the server's memory).
 */
export const LIST_COLUMNS = `id, account_id, name, url_code, description, app_engine, css_engine, source_code, public, active, db_code,
  show_in_module, prompt, actions, fields, config, build_hash, app_build_time, css_build_time, created_by_id, updated_by_id,
  created_at, updated_at`
export type AppSummaryRow = Omit<AppRow, 'app_code' | 'css_code' | 'token'>

export function toAppSummary(row: AppSummaryRow): AppSummary {
  return {
    ...row,
    public: !!row.public,
    active: !!row.active,
    actions: JSON.parse(row.actions),
    fields: JSON.parse(row.fields),
    config: JSON.parse(row.config),
  }
}

/** What an action call needs of its app, without the sources and builds. */
export const ACTION_TARGET_BY_ID = 'SELECT id, account_id, active, public, actions FROM apps WHERE id = ?'
export type ActionTargetRow = Pick<AppRow, 'id' | 'account_id' | 'active' | 'public' | 'actions'>
export const toActionTarget = (row: ActionTargetRow): AppActionTarget =>
  ({id: row.id, account_id: row.account_id, active: !!row.active, public: !!row.public, actions: JSON.parse(row.actions)})

/** The values an app's input and build give its columns, from `public` to `css_build_time`. */
const inputParams = (input: AppData, build: AppBuild) => [
  input.public ? 1 : 0, input.active ? 1 : 0, input.db_code, input.show_in_module, input.prompt,
  JSON.stringify(input.actions), JSON.stringify(input.fields), JSON.stringify(input.config),
  build.app_code, build.css_code, build.hash, build.app_build_time, build.css_build_time,
]

export const INSERT_APP = `INSERT INTO apps (id, account_id, name, url_code, description, app_engine, css_engine, source_code, public, active,
    db_code, show_in_module, prompt, actions, fields, config, app_code, css_code, build_hash, app_build_time,
    css_build_time, token, created_by_id, updated_by_id, created_at, updated_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?)`
/** A new app's values for INSERT_APP, with its token made here. */
export const insertAppParams = (id: string, accountId: number, userId: number, input: AppData, build: AppBuild, at: string) => [
  id, accountId, input.name, input.url_code, input.description, input.app_engine, input.css_engine, input.source_code,
  ...inputParams(input, build), randomBytes(24).toString('base64url'), userId, at, at,
]

export const UPDATE_APP = `UPDATE apps SET name = ?, url_code = ?, description = ?, app_engine = ?, css_engine = ?, source_code = ?, public = ?,
    active = ?, db_code = ?, show_in_module = ?, prompt = ?, actions = ?, fields = ?, config = ?, app_code = ?,
    css_code = ?, build_hash = ?, app_build_time = ?, css_build_time = ?, updated_by_id = ?, updated_at = ?
  WHERE account_id = ? AND id = ?`
export const updateAppParams = (accountId: number, id: string, userId: number, input: AppData, build: AppBuild, at: string) => [
  input.name, input.url_code, input.description, input.app_engine, input.css_engine, input.source_code,
  ...inputParams(input, build), userId, at, accountId, id,
]

/** url_codes are unique server-wide. */
export const urlCodeTaken = () => validation({url_code: ['has already been taken']})
