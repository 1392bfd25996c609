/**
 * The contract: one route definition per operation (params, query, body, every response),
 * made with @hono/zod-openapi's createRoute. The HTTP app serves them (src/http), the OpenAPI
 * document is generated from them (GET /svc/openapi.json) and the typed client takes its types
 * from them (src/client/typed.ts).
 */
import {createRoute} from '@hono/zod-openapi'
import {CreatedUser, Me, RevokedTokens, SetFieldQuery, SetFieldResult, Settings, SettingsPatch, User, UserCreateBody} from './account.js'
import {ActionReply, ActionStatusQuery, App, AppAsset, AppAssetBody, AppAssetQuery, AppBody, Engines, AppListQuery, AppPatchBody, AppReplaceBody, ReplaceBody} from './apps.js'
import {
  ERRORS, ErrorBody, FieldErrors, JsonObject, PRIVATE, PUBLIC, PublicFieldErrors, WRITE_ERRORS, html, json, markdown, noContent, redirect, z,
} from './common.js'
import {ContextQuery, Dashboard, DashboardBody, DashboardPatchBody, SelectBody, Selection, TileChoice, Widget, WidgetQuery, Widgets} from './dashboards.js'
import {
  Db, DbBody, DbPatchBody, DbPlan, DbPlanBody, DbReplaceBody, DbUsage, UsageQuery, FlatRecord, ImportBody, ImportQuery, ImportResult, PUBLIC_METHOD_NAMES, PublicCallBody,
  PublicCallQuery, PublicDeleted, PublicRecord, Record_, RecordBody, RecordPatchBody, RecordsQuery, SearchQuery,
} from './dbs.js'
import {
  Cron, CronBody, CronPatchBody, DbTrigger, DbTriggerBody, DbTriggerPatchBody, FlowProcess, FlowProcessDetail, ProcessQuery, Resource, ResourceBody, ResourcePatchBody, ResourceQuery, RunBody,
} from './flows.js'
import {HistoryEntry, HistoryEntryDetail, HistoryEntryQuery, HistoryQuery, RestoreResult, RestoreSinceBody, RestoreSinceResult} from './history.js'
import {operation} from './operations.js'
import {Explanation, ExplainQuery, Preview, PreviewBody, Prompt, PromptBody, PromptListQuery, PromptPatchBody, RenderQuery, SystemPrompt} from './prompts.js'

/** The one 422 of routes that take no input: a query parameter (any, name or value) holding a NUL character (src/http/router.ts). */
const QUERY_NUL = json(FieldErrors, 'A query parameter (name or value) holding a NUL character (src/core/text.ts): field map naming it')

/** The origin an app is served from (its own, not the API's): cookies there are the app's own. */
const APP_SERVER = {url: 'http://{code}.localhost:{port}', description: 'An app\'s own origin', variables: {code: {default: 'app'}, port: {default: '8080'}}}
const APP_ORIGIN: Record<string, string[]>[] = [{}, {app_session: []}]
/**
 * The records routes and the feed a member of an app may also call on the app's origin, for the db
 * the app declares (docs/security.md "Apps on their own origin"): there the app sign-in is the credential.
 */
const MEMBERS: Record<string, string[]>[] = [...PRIVATE, {app_session: []}]

const body = <S extends z.ZodType>(schema: S, description?: string) =>
  ({description, required: false, content: {'application/json': {schema}}}) as {description?: string; required: false; content: {'application/json': {schema: S}}}
const params = <K extends string>(...names: K[]) =>
  z.object(Object.fromEntries(names.map((n) => [n, z.string().openapi({param: {name: n, in: 'path'}})])) as {[P in K]: z.ZodString})

const idParam = (description: string) => z.object({id: z.string().openapi({param: {name: 'id', in: 'path'}, description})})
const dbParam = z.object({db_id: z.string().openapi({param: {name: 'db_id', in: 'path'}, description: 'Database id or code'})})
/** An answer with its entity tag (docs/api.md "ETag and If-Match"). */
const ETAG_HEADER = {ETag: {description: 'The version: send it back in If-Match', schema: {type: 'string' as const}}}
const tagged = (description: string) => ({...json(Record_, description), headers: ETAG_HEADER})
const taggedDb = (description: string) => ({...json(Db, description), headers: ETAG_HEADER})
const IfMatch = z.object({'if-match': z.string().optional().openapi({
  description: 'The ETag the change was made on: a write to a resource that changed since answers 412 with its current version. Without it, the write applies as before.',
})})
const Stale = json(ErrorBody.extend({etag: z.string(), current: Record_}), 'If-Match no longer matches: nothing was written; `current` is the record now, `etag` its tag')
const StaleDb = json(ErrorBody.extend({etag: z.string(), current: Db}), 'If-Match no longer matches: nothing was written; `current` is the database now, `etag` its tag')
/** An answer of `schema` with its ETag, and the 412 of a write whose If-Match no longer matches (`current` is `what` now). */
const taggedAs = <S extends z.ZodType>(schema: S, description: string) => ({...json(schema, description), headers: ETAG_HEADER})
const staleAs = <S extends z.ZodType>(schema: S, what: string) =>
  json(ErrorBody.extend({etag: z.string(), current: schema}), `If-Match no longer matches: nothing was written; \`current\` is the ${what} now, \`etag\` its tag`)
const recordParams = dbParam.extend({id: z.string().openapi({param: {name: 'id', in: 'path'}, pattern: '^[0-9]+$'})})

// ---------------------------------------------------------------------------------- me, account
export const meRoutes = {
  getMe: createRoute({
    ...operation('getMe'), tags: ['account'], security: PRIVATE, summary: 'The current user and account (never a token)',
    responses: {200: json(Me, 'The current user'), ...ERRORS},
  }),
  setAccountField: createRoute({
    ...operation('setAccountField'), tags: ['account'], security: PRIVATE,
    summary: 'Enable or disable a module of the account (permission `account`)',
    request: {query: SetFieldQuery},
    responses: {200: json(SetFieldResult, 'The new module list'), ...WRITE_ERRORS},
  }),
  getMySettings: createRoute({
    ...operation('getMySettings'), tags: ['account'], security: PRIVATE, summary: 'The current user\'s settings (the console\'s grid columns, …)',
    responses: {200: json(Settings, 'Settings'), ...ERRORS},
  }),
  updateMySettings: createRoute({
    ...operation('updateMySettings'), tags: ['account'], security: PRIVATE,
    summary: 'Set or remove settings of the current user (at most 200 keys, 16 KB each)',
    request: {body: body(SettingsPatch)},
    responses: {200: json(Settings, 'All the settings after the change'), ...WRITE_ERRORS},
  }),
  listUsers: createRoute({
    ...operation('listUsers'), tags: ['account'], security: PRIVATE, summary: 'The users of the account (admins only; never a token)',
    responses: {200: json(z.array(User), 'Users'), ...ERRORS},
  }),
  createUser: createRoute({
    ...operation('createUser'), tags: ['account'], security: PRIVATE,
    summary: 'Add a user to the account and mint its API token, shown once (admins only)',
    request: {body: body(UserCreateBody)},
    responses: {201: json(CreatedUser, 'The user and its token'), ...WRITE_ERRORS},
  }),
  revokeUserTokens: createRoute({
    ...operation('revokeUserTokens'), tags: ['account'], security: PRIVATE,
    summary: 'Revoke every token of a user of the account: API tokens, console sessions, app sign-ins (admins only)',
    request: {params: z.object({id: z.string().openapi({param: {name: 'id', in: 'path'}, pattern: '^[0-9]+$'})})},
    responses: {200: json(RevokedTokens, 'How many were revoked'), ...ERRORS},
  }),
}

// ------------------------------------------------------------------------------------- prompts
export const promptRoutes = {
  listPrompts: createRoute({
    ...operation('listPrompts'), tags: ['prompts'], security: PRIVATE, summary: 'Prompts the user can see',
    request: {query: PromptListQuery},
    responses: {200: json(z.array(Prompt), 'Prompts'), ...ERRORS},
  }),
  createPrompt: createRoute({
    ...operation('createPrompt'), tags: ['prompts'], security: PRIVATE, summary: 'Create a prompt',
    request: {body: body(PromptBody)},
    responses: {201: taggedAs(Prompt, 'Created'), ...WRITE_ERRORS},
  }),
  listSystemPrompts: createRoute({
    ...operation('listSystemPrompts'), tags: ['prompts'], security: PRIVATE, summary: 'System prompt files of the server',
    responses: {200: json(z.array(SystemPrompt), 'System prompts'), ...ERRORS},
  }),
  getSystemPrompt: createRoute({
    ...operation('getSystemPrompt'), tags: ['prompts'], security: PRIVATE, summary: 'A system prompt file as Markdown',
    request: {params: params('code')},
    responses: {200: markdown('The file (header `X-Svc-Prompt-Kind`)'), ...ERRORS},
  }),
  explainPrompt: createRoute({
    ...operation('explainPrompt'), tags: ['prompts'], security: PRIVATE,
    summary: 'The cascade of a code for a user: every layer that defines it, the winner and why, the `_extra`, and where the caller may write',
    request: {query: ExplainQuery},
    responses: {200: json(Explanation, 'The cascade'), ...WRITE_ERRORS},
  }),
  previewPrompt: createRoute({
    ...operation('previewPrompt'), tags: ['prompts'], security: PRIVATE,
    summary: 'Render unsaved content for a user, date and variables: parse error at its line and column, variables read, the render',
    request: {body: body(PreviewBody)},
    responses: {200: json(Preview, 'The preview'), ...WRITE_ERRORS},
  }),
  getPrompt: createRoute({
    ...operation('getPrompt'), tags: ['prompts'], security: PRIVATE, summary: 'A prompt',
    request: {params: idParam('Prompt id (UUID)')},
    responses: {200: taggedAs(Prompt, 'The prompt'), ...ERRORS},
  }),
  getPromptContent: createRoute({
    ...operation('getPromptContent'), tags: ['prompts'], security: PRIVATE, summary: 'A prompt\'s raw content (unrendered)',
    request: {params: idParam('Prompt id (UUID)')},
    responses: {200: markdown('The content'), ...ERRORS},
  }),
  updatePrompt: createRoute({
    ...operation('updatePrompt'), tags: ['prompts'], security: PRIVATE, summary: 'Change a prompt (its creator or an admin)',
    request: {params: idParam('Prompt id (UUID)'), headers: IfMatch, body: body(PromptPatchBody)},
    responses: {200: taggedAs(Prompt, 'The full prompt'), 412: staleAs(Prompt, 'prompt'), ...WRITE_ERRORS},
  }),
  deletePrompt: createRoute({
    ...operation('deletePrompt'), tags: ['prompts'], security: PRIVATE, summary: 'Delete a prompt (its creator or an admin)',
    request: {params: idParam('Prompt id (UUID)'), headers: IfMatch},
    responses: {204: noContent, 412: staleAs(Prompt, 'prompt'), ...ERRORS},
  }),
  renderPrompt: createRoute({
    ...operation('renderPrompt'), tags: ['prompts'], security: PRIVATE,
    summary: 'Render a prompt by code through the cascade (user, team, department, account, system)',
    request: {params: params('code'), query: RenderQuery},
    responses: {200: markdown('Rendered Markdown (headers `X-Svc-Prompt-Source`, `X-Svc-Prompt-Token`, ...)'), ...WRITE_ERRORS},
  }),
}

// ---------------------------------------------------------------------------------- dashboards
const dashboardId = idParam('Dashboard id')
export const dashboardRoutes = {
  listDashboards: createRoute({
    ...operation('listDashboards'), tags: ['dashboards'], security: PRIVATE, summary: 'Dashboards the user sees',
    request: {query: ContextQuery},
    responses: {200: json(z.array(Dashboard), 'Dashboards'), ...WRITE_ERRORS},
  }),
  createDashboard: createRoute({
    ...operation('createDashboard'), tags: ['dashboards'], security: PRIVATE, summary: 'Create a dashboard',
    request: {body: body(DashboardBody)},
    responses: {201: taggedAs(Dashboard, 'Created'), ...WRITE_ERRORS},
  }),
  selectDashboard: createRoute({
    ...operation('selectDashboard'), tags: ['dashboards'], security: PRIVATE, summary: 'Choose the dashboard shown in a context',
    request: {body: body(SelectBody)},
    responses: {200: json(Selection, 'The new selection and what it shows'), ...WRITE_ERRORS},
  }),
  getWidgets: createRoute({
    ...operation('getWidgets'), tags: ['dashboards'], security: PRIVATE, summary: 'The layout shown in a context',
    request: {query: ContextQuery},
    responses: {200: json(Widgets, 'Shown layout'), ...WRITE_ERRORS},
  }),
  listTiles: createRoute({
    ...operation('listTiles'), tags: ['dashboards'], security: PRIVATE,
    summary: 'Not in platform-api.md: every tile (and app tile) with whether the caller may add it, and why not',
    responses: {200: json(z.array(TileChoice), 'Tiles'), ...ERRORS},
  }),
  getWidget: createRoute({
    ...operation('getWidget'), tags: ['dashboards'], security: PRIVATE, summary: 'A tile: its settings and default config',
    request: {query: WidgetQuery},
    responses: {200: json(Widget, 'The tile'), ...WRITE_ERRORS},
  }),
  getDashboard: createRoute({
    ...operation('getDashboard'), tags: ['dashboards'], security: PRIVATE, summary: 'A dashboard',
    request: {params: dashboardId},
    responses: {200: taggedAs(Dashboard, 'The dashboard'), ...ERRORS},
  }),
  updateDashboard: createRoute({
    ...operation('updateDashboard'), tags: ['dashboards'], security: PRIVATE, summary: 'Change a dashboard',
    request: {params: dashboardId, headers: IfMatch, body: body(DashboardPatchBody)},
    responses: {200: taggedAs(Dashboard, 'The full dashboard'), 412: staleAs(Dashboard, 'dashboard'), ...WRITE_ERRORS},
  }),
  deleteDashboard: createRoute({
    ...operation('deleteDashboard'), tags: ['dashboards'], security: PRIVATE, summary: 'Delete a dashboard',
    request: {params: dashboardId, headers: IfMatch},
    responses: {204: noContent, 412: staleAs(Dashboard, 'dashboard'), ...ERRORS},
  }),
}

// ---------------------------------------------------------------------------------------- apps
const appId = idParam('App id (UUID)')
const actionParams = params('id', 'name')
export const appRoutes = {
  listApps: createRoute({
    ...operation('listApps'), tags: ['apps'], security: PRIVATE, summary: 'Apps of the account',
    request: {query: AppListQuery},
    responses: {200: json(z.array(App), 'Apps'), ...ERRORS},
  }),
  listEngines: createRoute({
    ...operation('listEngines'), tags: ['apps'], security: PRIVATE, summary: 'The app and CSS engines of this server (names, languages, which are built)',
    responses: {200: json(Engines, 'Engines'), ...ERRORS},
  }),
  createApp: createRoute({
    ...operation('createApp'), tags: ['apps'], security: PRIVATE, summary: 'Create an app (compiled now; headers `X-Svc-Build`, and `X-Svc-Warning` for a js source a browser would refuse, saved as written)',
    request: {body: body(AppBody)},
    responses: {201: taggedAs(App, 'Created'), ...WRITE_ERRORS},
  }),
  getApp: createRoute({
    ...operation('getApp'), tags: ['apps'], security: PRIVATE, summary: 'An app',
    request: {params: appId},
    responses: {200: taggedAs(App, 'The app'), ...ERRORS},
  }),
  updateApp: createRoute({
    ...operation('updateApp'), tags: ['apps'], security: PRIVATE, summary: 'Change an app (recompiled when the source changes)',
    request: {params: appId, headers: IfMatch, body: body(AppPatchBody)},
    responses: {200: taggedAs(App, 'The full app'), 412: staleAs(App, 'app'), ...WRITE_ERRORS},
  }),
  replaceInApp: createRoute({
    ...operation('replaceInApp'), tags: ['apps'], security: PRIVATE, summary: 'Replace a string in source_code, prompt or fields',
    request: {params: appId, headers: IfMatch, body: body(AppReplaceBody)},
    responses: {200: taggedAs(App, 'The full app'), 412: staleAs(App, 'app'), ...WRITE_ERRORS},
  }),
  deleteApp: createRoute({
    ...operation('deleteApp'), tags: ['apps'], security: PRIVATE, summary: 'Delete an app',
    request: {params: appId, headers: IfMatch},
    responses: {204: noContent, 412: staleAs(App, 'app'), ...ERRORS},
  }),
  listAppAssets: createRoute({
    ...operation('listAppAssets'), tags: ['apps'], security: PRIVATE, summary: 'The assets of an app (images, sounds, fonts, data)',
    request: {params: appId},
    responses: {200: json(z.array(AppAsset), 'Assets, by path'), ...ERRORS},
  }),
  putAppAsset: createRoute({
    ...operation('putAppAsset'), tags: ['apps'], security: PRIVATE,
    summary: 'Store or replace an asset, served at its path on the app\'s origin (quotas app_asset_bytes, app_assets_bytes, app_assets_count)',
    request: {params: appId, body: body(AppAssetBody)},
    responses: {200: json(AppAsset, 'The stored asset'), ...WRITE_ERRORS},
  }),
  deleteAppAsset: createRoute({
    ...operation('deleteAppAsset'), tags: ['apps'], security: PRIVATE, summary: 'Delete an asset',
    request: {params: appId, query: AppAssetQuery},
    responses: {204: noContent, ...ERRORS},
  }),
  runAppAction: createRoute({
    ...operation('runAppAction'), tags: ['apps'], security: PUBLIC,
    summary: 'Run an app action (its flow, with the body as input); public actions need no login',
    request: {params: actionParams, body: body(JsonObject)},
    responses: {200: json(ActionReply, 'The run (finished, error or still pending)'), ...WRITE_ERRORS},
  }),
  getAppActionStatus: createRoute({
    ...operation('getAppActionStatus'), tags: ['apps'], security: PUBLIC, summary: 'Poll a pending action run',
    request: {params: actionParams, query: ActionStatusQuery},
    responses: {200: json(ActionReply, 'The run'), ...ERRORS},
  }),
}

// ---------------------------------------------------------------------------------- app pages
export const pageRoutes = {
  appPage: createRoute({
    ...operation('appPage'), tags: ['pages'], security: PUBLIC,
    summary: "Hands over to the app's own origin (by url_code or id): a member of its account through a one-use sign-in there, " +
      'anyone else as a visitor; a private app first sends others to the login page. The page and its assets are served on ' +
      'the app origin only (docs/security.md)',
    request: {params: params('url_code')},
    responses: {302: redirect("To the app's origin, or (private app, not a member) to the login page"), 404: html('No app here')},
  }),
  appOriginAsset: createRoute({
    ...operation('appOriginAsset'), tags: ['pages'], security: APP_ORIGIN,
    summary: 'On an app\'s own origin: its compiled script or style (`app.<hash>.js|css`)',
    servers: [APP_SERVER],
    request: {params: params('hash', 'ext')},
    responses: {
      200: {description: 'The asset', content: {'text/javascript': {schema: z.string()}, 'text/css': {schema: z.string()}}},
      404: json(ErrorBody, 'Unknown asset, or a private app without its sign-in'),
    },
  }),
  appOriginSignIn: createRoute({
    ...operation('appOriginSignIn'), tags: ['pages'], security: APP_ORIGIN, servers: [APP_SERVER],
    summary: 'On an app\'s own origin: takes a one-time sign-in from the main origin and sets the app\'s own cookie',
    request: {query: z.object({token: z.string().optional().openapi({description: 'One-time, app-scoped'}), next: z.string().optional()})},
    responses: {303: redirect('On to `/_svc/check` or `next`'), 400: json(ErrorBody, 'Bad sign-in'), 404: json(ErrorBody, 'No such app')},
  }),
  appOriginCheck: createRoute({
    ...operation('appOriginCheck'), tags: ['pages'], security: APP_ORIGIN, servers: [APP_SERVER],
    summary: 'On an app\'s own origin: on to the app when the browser kept its sign-in, else a page that says so',
    request: {query: z.object({next: z.string().optional()})},
    responses: {303: redirect('On to `next`'), 403: html('The browser did not keep the sign-in (a link to open the app in a tab)'), 404: json(ErrorBody, 'No such app')},
  }),
  appLibrary: createRoute({
    ...operation('appLibrary'), tags: ['pages'], security: PUBLIC, summary: 'A library the server serves to app pages (offline)',
    request: {params: params('name')},
    responses: {200: {description: 'The file', content: {'text/javascript': {schema: z.string()}}}, 404: json(ErrorBody, 'Unknown library')},
  }),
  loginPage: createRoute({
    ...operation('loginPage'), tags: ['pages'], security: PUBLIC, summary: 'The login page (takes a token)',
    request: {query: z.object({next: z.string().optional()})},
    responses: {200: html('The form')},
  }),
  login: createRoute({
    ...operation('login'), tags: ['pages'], security: PUBLIC, summary: 'Sign in with a token: sets the session cookie',
    request: {body: {content: {'application/x-www-form-urlencoded': {schema: {type: 'object', properties: {token: {type: 'string'}, next: {type: 'string'}}}}}}},
    responses: {303: redirect('Signed in: to `next`'), 401: html('Invalid token'), 403: json(ErrorBody, 'Cross-origin form'),
      429: json(ErrorBody, 'Too many sign-in attempts from this address (`Retry-After`)')},
  }),
  logout: createRoute({
    ...operation('logout'), tags: ['pages'], security: PUBLIC, summary: 'Sign out (ends the session)',
    responses: {303: redirect('To the login page'), 403: json(ErrorBody, 'Cross-origin request')},
  }),
  consolePage: createRoute({
    ...operation('consolePage'), tags: ['pages'], security: PUBLIC,
    summary: 'The web console on the main origin; on an app\'s own origin (`http://<code>.localhost:<port>` or `--apps-url`), the app\'s page',
    responses: {
      200: html('The console, or the app page'),
      302: redirect('A private app without its sign-in: to the main origin'),
      303: redirect('Not signed in: to the login page'),
      404: json(ErrorBody, 'Console not built, or no such app'),
    },
  }),
  consoleAsset: createRoute({
    ...operation('consoleAsset'), tags: ['pages'], security: PUBLIC, summary: 'A file of the web console',
    request: {params: params('file')},
    responses: {
      200: {description: 'The file', content: {'text/javascript': {schema: z.string()}, 'text/css': {schema: z.string()}}},
      404: json(ErrorBody, 'Unknown file'),
    },
  }),
  consoleIcon: createRoute({
    ...operation('consoleIcon'), tags: ['pages'], security: PUBLIC, summary: 'The icon of the console and login pages (SVG)',
    responses: {200: {description: 'The icon', content: {'image/svg+xml': {schema: z.string()}}}},
  }),
}

// ----------------------------------------------------------------------------------------- dbs
const dbId = idParam('Database id or code')
const publicParams = z.object({
  db_code: z.string().openapi({param: {name: 'db_code', in: 'path'}}),
  method_name: z.enum(PUBLIC_METHOD_NAMES).openapi({param: {name: 'method_name', in: 'path'}}),
})
const publicResponses = {
  200: {
    description: 'list/search: records; get/update: a record; delete: `{id, deleted}`; subscribe: an event stream (docs/realtime.md: `create`/`update` with the record as list answers it, `delete` with `{id, table_name}`, `resync`; `id:` a journal bookmark, `Last-Event-ID` resumes)',
    content: {
      'application/json': {schema: z.union([z.array(PublicRecord), PublicRecord, PublicDeleted])},
      'text/event-stream': {schema: z.string()},
    },
  },
  201: json(PublicRecord, 'create: the record'),
  ...ERRORS,
  422: json(z.union([PublicFieldErrors, FieldErrors]), 'A required field is missing (`{error, fields}`) or a value is invalid (field map)'),
}
export const dbRoutes = {
  listDbs: createRoute({
    ...operation('listDbs'), tags: ['dbs'], security: PRIVATE, summary: 'Databases of the account',
    responses: {200: json(z.array(Db), 'Databases (records_count -1: not counted)'), ...ERRORS},
  }),
  createDb: createRoute({
    ...operation('createDb'), tags: ['dbs'], security: PRIVATE, summary: 'Create a database',
    request: {body: body(DbBody)},
    responses: {201: taggedDb('Created'), ...WRITE_ERRORS},
  }),
  getDb: createRoute({
    ...operation('getDb'), tags: ['dbs'], security: PRIVATE, summary: 'A database (with its record count)',
    request: {params: dbId},
    responses: {200: taggedDb('The database'), ...ERRORS},
  }),
  updateDb: createRoute({
    ...operation('updateDb'), tags: ['dbs'], security: PRIVATE, summary: 'Change a database (a schema change re-indexes records)',
    request: {params: dbId, headers: IfMatch, body: body(DbPatchBody)},
    responses: {200: taggedDb('The full database'), 412: StaleDb, ...WRITE_ERRORS},
  }),
  deleteDb: createRoute({
    ...operation('deleteDb'), tags: ['dbs'], security: PRIVATE, summary: 'Delete a database and its records',
    request: {params: dbId, headers: IfMatch},
    responses: {204: noContent, 412: StaleDb, ...ERRORS},
  }),
  replaceInDb: createRoute({
    ...operation('replaceInDb'), tags: ['dbs'], security: PRIVATE, summary: 'Replace a string in schema, public_methods or fields',
    request: {params: dbId, headers: IfMatch, body: body(DbReplaceBody)},
    responses: {200: taggedDb('The full database'), 412: StaleDb, ...WRITE_ERRORS},
  }),
  getDbUsage: createRoute({
    ...operation('getDbUsage'), tags: ['dbs'], security: PRIVATE, summary: 'Record counts per table and field',
    request: {params: dbId, query: UsageQuery},
    responses: {200: json(DbUsage, 'Usage'), ...ERRORS},
  }),
  planDbChange: createRoute({
    ...operation('planDbChange'), tags: ['dbs'], security: PRIVATE,
    summary: 'The plan of a db change, written nothing: the typed diff, the data it would drop, the stored records it would leave invalid (what svc db push, svc push and the schema editor show)',
    request: {body: body(DbPlanBody)},
    responses: {200: json(DbPlan, 'The plan'), ...WRITE_ERRORS},
  }),
  listRecords: createRoute({
    ...operation('listRecords'), tags: ['records'], security: MEMBERS, summary: 'Records, newest first',
    request: {params: dbParam, query: RecordsQuery},
    responses: {200: json(z.array(Record_), 'Records'), ...WRITE_ERRORS},
  }),
  createRecord: createRoute({
    ...operation('createRecord'), tags: ['records'], security: MEMBERS, summary: 'Create a record (checked against the db schema)',
    request: {params: dbParam, body: body(RecordBody)},
    responses: {201: tagged('Created'), ...WRITE_ERRORS},
  }),
  importRecords: createRoute({
    ...operation('importRecords'), tags: ['records'], security: PRIVATE, summary: 'Insert up to 1000 records, all or nothing',
    request: {
      params: dbParam, body: body(ImportBody), query: ImportQuery,
    },
    responses: {200: json(ImportResult, 'dry_run=1: nothing written'), 201: json(ImportResult, 'How many were inserted'), ...WRITE_ERRORS},
  }),
  getRecord: createRoute({
    ...operation('getRecord'), tags: ['records'], security: MEMBERS, summary: 'A record',
    request: {params: recordParams},
    responses: {200: tagged('The record'), ...ERRORS},
  }),
  updateRecord: createRoute({
    ...operation('updateRecord'), tags: ['records'], security: MEMBERS, summary: 'Change a record (data merged over the stored one)',
    request: {params: recordParams, headers: IfMatch, body: body(RecordPatchBody)},
    responses: {200: tagged('The full record'), 412: Stale, ...WRITE_ERRORS},
  }),
  deleteRecord: createRoute({
    ...operation('deleteRecord'), tags: ['records'], security: MEMBERS, summary: 'Delete a record',
    request: {params: recordParams, headers: IfMatch},
    responses: {204: noContent, 412: Stale, ...ERRORS},
  }),
  searchRecords: createRoute({
    ...operation('searchRecords'), tags: ['records'], security: MEMBERS, summary: 'Search, filter and sort records (flat shape)',
    request: {params: dbParam, query: SearchQuery},
    responses: {200: json(z.array(FlatRecord), 'Matching records'), ...WRITE_ERRORS},
  }),
  callPublicMethodGet: createRoute({
    ...operation('callPublicMethodGet'), tags: ['public methods'], security: PUBLIC,
    summary: 'Call a public method of a database (no login): parameters in the query string',
    request: {params: publicParams, query: PublicCallQuery},
    responses: publicResponses,
  }),
  callPublicMethodPost: createRoute({
    ...operation('callPublicMethodPost'), tags: ['public methods'], security: PUBLIC,
    summary: 'Call a public method of a database (no login): parameters in the query string and the JSON body',
    request: {params: publicParams, query: PublicCallQuery, body: body(PublicCallBody)},
    responses: publicResponses,
  }),
}

// ---------------------------------------------------------------------------------------- flows
const resourceId = idParam('Resource id')
const cronId = idParam('Cron id')
const dbTriggerId = idParam('Db trigger id')
const connectorParams = params('code', 'method')
const connectorResponses = {
  200: {description: 'The upstream answer (JSON, or text)', content: {'application/json': {schema: z.unknown()}, 'text/plain': {schema: z.string()}}},
  ...WRITE_ERRORS,
  502: json(ErrorBody, 'The upstream API failed'),
  504: json(ErrorBody, 'The upstream API timed out'),
}
export const flowRoutes = {
  listResources: createRoute({
    ...operation('listResources'), tags: ['flows'], security: PRIVATE, summary: 'Connectors and flows',
    request: {query: ResourceQuery},
    responses: {200: json(z.array(Resource), 'Resources'), ...ERRORS},
  }),
  createResource: createRoute({
    ...operation('createResource'), tags: ['flows'], security: PRIVATE, summary: 'Create a connector or a flow',
    request: {body: body(ResourceBody)},
    responses: {201: json(Resource, 'Created'), ...WRITE_ERRORS},
  }),
  getResource: createRoute({
    ...operation('getResource'), tags: ['flows'], security: PRIVATE, summary: 'A connector or flow',
    request: {params: resourceId},
    responses: {200: json(Resource, 'The resource'), ...ERRORS},
  }),
  updateResource: createRoute({
    ...operation('updateResource'), tags: ['flows'], security: PRIVATE, summary: 'Change a connector or flow',
    request: {params: resourceId, body: body(ResourcePatchBody)},
    responses: {200: json(Resource, 'The full resource'), ...WRITE_ERRORS},
  }),
  deleteResource: createRoute({
    ...operation('deleteResource'), tags: ['flows'], security: PRIVATE, summary: 'Delete a connector or flow',
    request: {params: resourceId},
    responses: {204: noContent, ...ERRORS},
  }),
  runFlow: createRoute({
    ...operation('runFlow'), tags: ['flows'], security: PRIVATE, summary: 'Run a flow by hand',
    request: {params: resourceId, body: body(RunBody)},
    responses: {201: json(FlowProcessDetail, 'The run'), ...WRITE_ERRORS},
  }),
  callConnectorGet: createRoute({
    ...operation('callConnectorGet'), tags: ['flows'], security: PUBLIC,
    summary: 'Call a connector method (public methods need no login); params from the query string',
    request: {params: connectorParams, query: z.looseObject({})},
    responses: connectorResponses,
  }),
  callConnectorPost: createRoute({
    ...operation('callConnectorPost'), tags: ['flows'], security: PUBLIC,
    summary: 'Call a connector method (public methods need no login); params from the query string and JSON body',
    request: {params: connectorParams, query: z.looseObject({}), body: body(JsonObject)},
    responses: connectorResponses,
  }),
  listCrons: createRoute({
    ...operation('listCrons'), tags: ['crons'], security: PRIVATE, summary: 'Crons of the account',
    responses: {200: json(z.array(Cron), 'Crons'), ...ERRORS},
  }),
  createCron: createRoute({
    ...operation('createCron'), tags: ['crons'], security: PRIVATE, summary: 'Create a cron',
    request: {body: body(CronBody)},
    responses: {201: json(Cron, 'Created'), ...WRITE_ERRORS},
  }),
  getCron: createRoute({
    ...operation('getCron'), tags: ['crons'], security: PRIVATE, summary: 'A cron',
    request: {params: cronId},
    responses: {200: json(Cron, 'The cron'), ...ERRORS},
  }),
  updateCron: createRoute({
    ...operation('updateCron'), tags: ['crons'], security: PRIVATE, summary: 'Change a cron',
    request: {params: cronId, body: body(CronPatchBody)},
    responses: {200: json(Cron, 'The full cron'), ...WRITE_ERRORS},
  }),
  deleteCron: createRoute({
    ...operation('deleteCron'), tags: ['crons'], security: PRIVATE, summary: 'Delete a cron',
    request: {params: cronId},
    responses: {204: noContent, ...ERRORS},
  }),
  runCron: createRoute({
    ...operation('runCron'), tags: ['crons'], security: PRIVATE, summary: 'Run a cron now',
    request: {params: cronId},
    responses: {201: json(FlowProcessDetail, 'The run'), ...WRITE_ERRORS},
  }),
  listDbTriggers: createRoute({
    ...operation('listDbTriggers'), tags: ['crons'], security: PRIVATE, summary: 'Triggers on db changes of the account (docs/flows.md)',
    responses: {200: json(z.array(DbTrigger), 'Db triggers'), ...ERRORS},
  }),
  createDbTrigger: createRoute({
    ...operation('createDbTrigger'), tags: ['crons'], security: PRIVATE, summary: 'Run a flow on each change of a db (a table, some ops)',
    request: {body: body(DbTriggerBody)},
    responses: {201: json(DbTrigger, 'Created'), ...WRITE_ERRORS},
  }),
  getDbTrigger: createRoute({
    ...operation('getDbTrigger'), tags: ['crons'], security: PRIVATE, summary: 'A db trigger',
    request: {params: dbTriggerId},
    responses: {200: json(DbTrigger, 'The db trigger'), ...ERRORS},
  }),
  updateDbTrigger: createRoute({
    ...operation('updateDbTrigger'), tags: ['crons'], security: PRIVATE, summary: 'Change a db trigger',
    request: {params: dbTriggerId, body: body(DbTriggerPatchBody)},
    responses: {200: json(DbTrigger, 'The full db trigger'), ...WRITE_ERRORS},
  }),
  deleteDbTrigger: createRoute({
    ...operation('deleteDbTrigger'), tags: ['crons'], security: PRIVATE, summary: 'Delete a db trigger (its runs stay listed)',
    request: {params: dbTriggerId},
    responses: {204: noContent, ...ERRORS},
  }),
  listFlowProcesses: createRoute({
    ...operation('listFlowProcesses'), tags: ['flows'], security: PRIVATE, summary: 'Flow runs, newest first',
    request: {query: ProcessQuery},
    responses: {200: json(z.array(FlowProcess), 'Runs'), ...ERRORS},
  }),
  getFlowProcess: createRoute({
    ...operation('getFlowProcess'), tags: ['flows'], security: PRIVATE, summary: 'A flow run',
    request: {params: idParam('Run id (UUID)')},
    responses: {200: json(FlowProcessDetail, 'The run'), ...ERRORS},
  }),
}

// ------------------------------------------------------------------------------------- history
const bookmarkParam = z.object({bookmark: z.string().openapi({param: {name: 'bookmark', in: 'path'}, description: 'A journal bookmark', pattern: '^[0-9]+$'})})
export const historyRoutes = {
  listHistory: createRoute({
    ...operation('listHistory'), tags: ['history'], security: PRIVATE,
    summary: 'The journal of the account: the changes the caller may read, newest first (docs/history.md)',
    request: {query: HistoryQuery},
    responses: {200: json(z.array(HistoryEntry), 'Entries, newest first'), ...ERRORS, 422: json(FieldErrors, 'A bad filter')},
  }),
  getHistoryEntry: createRoute({
    ...operation('getHistoryEntry'), tags: ['history'], security: PRIVATE,
    summary: 'One entry with the version it wrote and the one before',
    request: {params: bookmarkParam, query: HistoryEntryQuery},
    responses: {200: json(HistoryEntryDetail, 'The entry'), ...ERRORS},
  }),
  restoreEntry: createRoute({
    ...operation('restoreEntry'), tags: ['history'], security: PRIVATE,
    summary: 'The resource becomes this entry\'s version (a deleted one comes back; a db with its records); itself a journal entry',
    request: {params: bookmarkParam, headers: IfMatch},
    responses: {
      200: json(RestoreResult, 'Restored'), ...WRITE_ERRORS,
      412: json(ErrorBody.extend({etag: z.string().nullable(), current: z.unknown()}), 'If-Match no longer matches the current version: nothing was written'),
      422: json(FieldErrors, 'A code or url_code was taken meanwhile (named), or a record\'s db no longer exists'),
    },
  }),
  restoreSince: createRoute({
    ...operation('restoreSince'), tags: ['history'], security: PRIVATE,
    summary: 'Every resource changed since a time (by the matching writes) returns to its version just before it',
    request: {body: {required: true, content: {'application/json': {schema: RestoreSinceBody}}}},
    responses: {200: json(RestoreSinceResult, 'What was restored, and what could not be'), ...WRITE_ERRORS},
  }),
}

// ---------------------------------------------------------------------------------- live feeds
/** An event stream (docs/realtime.md): `event:`, `id:` (a journal bookmark) and `data:` (JSON) frames, heartbeat comments. */
const eventStream = (description: string) => ({description, content: {'text/event-stream': {schema: z.string()}}})
const LastEventId = z.object({'last-event-id': z.string().optional().openapi({
  description: 'The bookmark of the last event received (EventSource sends it when it reconnects): every change since, in order, once; `event: resync` when it is past retention.',
})})
const FEED_ERRORS = {...ERRORS, 429: json(ErrorBody, 'Too many live feeds open for the account or on the server (quotas `feeds_per_account`, `feeds_per_server`); `Retry-After`')}
export const feedRoutes = {
  watchDbChanges: createRoute({
    ...operation('watchDbChanges'), tags: ['dbs'], security: MEMBERS,
    summary: 'The db\'s record changes as they happen (Server-Sent Events: `create`, `update`, `delete` with the record as the records API shapes it, `{id, table_name}` for a delete; `resync`)',
    request: {
      params: dbParam, headers: LastEventId,
      query: z.object({
        table_name: z.string().optional().openapi({description: 'Only this table\'s records'}),
        record_id: z.string().optional().openapi({description: 'Only this record', pattern: '^[0-9]+$'}),
        last_event_id: z.string().optional().openapi({description: 'As the Last-Event-ID header, for a client that cannot send it'}),
      }),
    },
    responses: {200: eventStream('The stream (never ends by itself)'), ...FEED_ERRORS},
  }),
  watchChanges: createRoute({
    ...operation('watchChanges'), tags: ['history'], security: PRIVATE,
    summary: 'The account\'s changes the caller may read as they happen (Server-Sent Events: unnamed events whose data is a `/svc/history.json` entry; `resync`)',
    request: {
      headers: LastEventId,
      query: z.object({
        kind: z.string().optional().openapi({description: 'Only entries of this kind'}),
        id: z.string().optional().openapi({description: 'Only entries of this resource id'}),
        db: z.string().optional().openapi({description: 'Only the entries of this db (id) and its records'}),
        last_event_id: z.string().optional(),
      }),
    },
    responses: {200: eventStream('The stream (never ends by itself)'), ...FEED_ERRORS},
  }),
}

// ------------------------------------------------------------------------------------ contract
const Health = z.object({
  status: z.enum(['ok', 'unavailable']),
  store: z.enum(['sqlite', 'pg']),
  backup: z.object({
    last_ok_at: z.string().nullable().openapi({description: 'When the last scheduled backup was completed (or found in the backup dir at start)'}),
    age_seconds: z.number().int().nullable(),
    every_seconds: z.number().int(),
    failing: z.boolean().openapi({description: 'The last attempt failed (the server\'s log says why)'}),
  }).nullable().openapi({description: 'Scheduled backups (`svc serve --backup-dir`), or null without them'}),
}).openapi('Health')

export const contractRoutes = {
  getOpenApiDocument: createRoute({
    ...operation('getOpenApiDocument'), tags: ['contract'], security: PUBLIC, summary: 'This document (OpenAPI 3.1)',
    responses: {200: json(JsonObject, 'The OpenAPI document'), 422: QUERY_NUL},
  }),
  getHealth: createRoute({
    ...operation('getHealth'), tags: ['contract'], security: PUBLIC,
    summary: 'Whether the server and its store answer, and the age of the last good scheduled backup (for load balancers and monitors)',
    responses: {200: json(Health, 'The server answers'), 422: QUERY_NUL, 503: json(Health, 'The store does not answer')},
  }),
  apiReference: createRoute({
    ...operation('apiReference'), tags: ['contract'], security: PUBLIC, summary: 'Interactive API reference (works offline)',
    responses: {200: html('Swagger UI'), 422: QUERY_NUL},
  }),
  apiReferenceAsset: createRoute({
    ...operation('apiReferenceAsset'), tags: ['contract'], security: PUBLIC, summary: 'A file of the API reference (from swagger-ui-dist)',
    request: {params: params('file')},
    responses: {
      200: {description: 'The file', content: {'text/javascript': {schema: z.string()}, 'text/css': {schema: z.string()}, 'image/png': {schema: z.string()}}},
      404: json(ErrorBody, 'Unknown file'),
      422: QUERY_NUL,
    },
  }),
  consoleIcon: createRoute({
    ...operation('consoleIcon'), tags: ['pages'], security: PUBLIC, summary: 'The icon of the console and login pages (SVG)',
    responses: {200: {description: 'The icon', content: {'image/svg+xml': {schema: z.string()}}}},
  }),
}

/** Every route of the API, by operation id. */
export const ROUTES = {
  ...meRoutes, ...promptRoutes, ...dashboardRoutes, ...appRoutes, ...pageRoutes, ...dbRoutes, ...flowRoutes, ...historyRoutes, ...feedRoutes, ...contractRoutes,
}
export type Routes = typeof ROUTES
