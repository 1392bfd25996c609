/**
 * An app as core (validation, responses) and the compilers know it: the fields a write stores, a
 * compile's output, a stored app. The apps repository (src/store/apps/) reads and writes these.
 */
import type {AppAction} from '../contract/apps.js'

/** The fields a write stores (checked by the route's schema, merged by core/apps/validate.ts appData). */
export interface AppData {
  name: string
  url_code: string
  description: string
  app_engine: string
  css_engine: string
  source_code: string
  public: boolean
  active: boolean
  db_code: string | null
  show_in_module: string | null
  prompt: string | null
  actions: AppAction[]
  fields: Record<string, unknown>
  config: Record<string, unknown>
}

/** The output of a compile, stored on the app (and in the content-addressed build cache). */
export interface AppBuild {
  hash: string
  app_code: string
  css_code: string
  app_build_time: number
  css_build_time: number
}

/** A stored app, every column (http decides what a response shows). */
export interface AppRecord extends AppData {
  id: string
  account_id: number
  app_code: string
  css_code: string
  build_hash: string
  app_build_time: number
  css_build_time: number
  token: string
  created_by_id: number
  updated_by_id: number | null
  created_at: string
  updated_at: string
}

/** An app as a list shows it: every column but its build and its token. */
export type AppSummary = Omit<AppRecord, 'app_code' | 'css_code' | 'token'>
