/**
 * Every operation of the API: its id, method and path (OpenAPI path template). Zod-free on
 * purpose: the typed client (src/client/typed.ts) reads this table at run time, and the route
 * definitions of the contract (./routes.ts) spread it, so a path is written once.
 */
export const OPERATIONS = {
  // me, account
  getMe: {method: 'get', path: '/svc/me.json'},
  setAccountField: {method: 'post', path: '/account/set_field.json'},
  getMySettings: {method: 'get', path: '/svc/me/settings.json'},
  updateMySettings: {method: 'patch', path: '/svc/me/settings.json'},
  listUsers: {method: 'get', path: '/svc/users.json'},
  createUser: {method: 'post', path: '/svc/users.json'},
  revokeUserTokens: {method: 'post', path: '/svc/users/{id}/revoke_tokens.json'},
  // history (the journal)
  listHistory: {method: 'get', path: '/svc/history.json'},
  restoreSince: {method: 'post', path: '/svc/history/restore.json'},
  getHistoryEntry: {method: 'get', path: '/svc/history/{bookmark}.json'},
  restoreEntry: {method: 'post', path: '/svc/history/{bookmark}/restore.json'},
  // live feeds (Server-Sent Events)
  watchChanges: {method: 'get', path: '/svc/changes'},
  watchDbChanges: {method: 'get', path: '/svc/dbs/{db_id}/changes'},
  // prompts
  listPrompts: {method: 'get', path: '/svc/prompts.json'},
  createPrompt: {method: 'post', path: '/svc/prompts.json'},
  listSystemPrompts: {method: 'get', path: '/svc/prompts/system.json'},
  getSystemPrompt: {method: 'get', path: '/svc/prompts/system/{code}.md'},
  explainPrompt: {method: 'get', path: '/svc/prompts/explain.json'},
  previewPrompt: {method: 'post', path: '/svc/prompts/preview.json'},
  getPrompt: {method: 'get', path: '/svc/prompts/{id}.json'},
  getPromptContent: {method: 'get', path: '/svc/prompts/{id}.md'},
  updatePrompt: {method: 'patch', path: '/svc/prompts/{id}.json'},
  deletePrompt: {method: 'delete', path: '/svc/prompts/{id}.json'},
  renderPrompt: {method: 'get', path: '/svc/prompt/{code}.md'},
  // dashboards
  listDashboards: {method: 'get', path: '/toolkit/dashboards.json'},
  createDashboard: {method: 'post', path: '/toolkit/dashboards.json'},
  selectDashboard: {method: 'patch', path: '/toolkit/dashboards/select.json'},
  getWidgets: {method: 'get', path: '/toolkit/dashboards/widgets.json'},
  getWidget: {method: 'get', path: '/toolkit/dashboards/widget.json'},
  listTiles: {method: 'get', path: '/toolkit/dashboards/tiles.json'},
  getDashboard: {method: 'get', path: '/toolkit/dashboards/{id}.json'},
  updateDashboard: {method: 'patch', path: '/toolkit/dashboards/{id}.json'},
  deleteDashboard: {method: 'delete', path: '/toolkit/dashboards/{id}.json'},
  // apps
  listApps: {method: 'get', path: '/svc/apps.json'},
  listEngines: {method: 'get', path: '/svc/engines.json'},
  createApp: {method: 'post', path: '/svc/apps.json'},
  getApp: {method: 'get', path: '/svc/apps/{id}.json'},
  updateApp: {method: 'patch', path: '/svc/apps/{id}.json'},
  replaceInApp: {method: 'patch', path: '/svc/apps/{id}/replace.json'},
  deleteApp: {method: 'delete', path: '/svc/apps/{id}.json'},
  listAppAssets: {method: 'get', path: '/svc/apps/{id}/assets.json'},
  putAppAsset: {method: 'put', path: '/svc/apps/{id}/assets.json'},
  deleteAppAsset: {method: 'delete', path: '/svc/apps/{id}/assets.json'},
  runAppAction: {method: 'post', path: '/svc/apps/{id}/action/{name}'},
  getAppActionStatus: {method: 'get', path: '/svc/apps/{id}/action/{name}/status'},
  // app pages (HTML)
  appPage: {method: 'get', path: '/a/{url_code}'},
  appOriginAsset: {method: 'get', path: '/app.{hash}.{ext}'},
  appOriginSignIn: {method: 'get', path: '/_svc/signin'},
  appOriginCheck: {method: 'get', path: '/_svc/check'},
  appLibrary: {method: 'get', path: '/_svc/lib/{name}'},
  loginPage: {method: 'get', path: '/svc/login'},
  login: {method: 'post', path: '/svc/login'},
  logout: {method: 'post', path: '/svc/logout'},
  consolePage: {method: 'get', path: '/'},
  consoleAsset: {method: 'get', path: '/console/assets/{file}'},
  consoleIcon: {method: 'get', path: '/favicon.ico'},
  // dbs
  listDbs: {method: 'get', path: '/svc/dbs.json'},
  createDb: {method: 'post', path: '/svc/dbs.json'},
  getDb: {method: 'get', path: '/svc/dbs/{id}.json'},
  updateDb: {method: 'patch', path: '/svc/dbs/{id}.json'},
  deleteDb: {method: 'delete', path: '/svc/dbs/{id}.json'},
  replaceInDb: {method: 'patch', path: '/svc/dbs/{id}/replace.json'},
  getDbUsage: {method: 'get', path: '/svc/dbs/{id}/usage.json'},
  planDbChange: {method: 'post', path: '/svc/dbs/plan.json'},
  listRecords: {method: 'get', path: '/svc/dbs/{db_id}/records.json'},
  createRecord: {method: 'post', path: '/svc/dbs/{db_id}/records.json'},
  importRecords: {method: 'post', path: '/svc/dbs/{db_id}/import.json'},
  getRecord: {method: 'get', path: '/svc/dbs/{db_id}/records/{id}.json'},
  updateRecord: {method: 'patch', path: '/svc/dbs/{db_id}/records/{id}.json'},
  deleteRecord: {method: 'delete', path: '/svc/dbs/{db_id}/records/{id}.json'},
  searchRecords: {method: 'get', path: '/svc/dbs/{db_id}/search.json'},
  callPublicMethodGet: {method: 'get', path: '/svc/db/{db_code}/{method_name}'},
  callPublicMethodPost: {method: 'post', path: '/svc/db/{db_code}/{method_name}'},
  // flows, connectors, crons
  listResources: {method: 'get', path: '/svc/resources.json'},
  createResource: {method: 'post', path: '/svc/resources.json'},
  getResource: {method: 'get', path: '/svc/resources/{id}.json'},
  updateResource: {method: 'patch', path: '/svc/resources/{id}.json'},
  deleteResource: {method: 'delete', path: '/svc/resources/{id}.json'},
  runFlow: {method: 'post', path: '/svc/resources/{id}/run.json'},
  callConnectorGet: {method: 'get', path: '/svc/connector/{code}/{method}'},
  callConnectorPost: {method: 'post', path: '/svc/connector/{code}/{method}'},
  listCrons: {method: 'get', path: '/account/crons.json'},
  createCron: {method: 'post', path: '/account/crons.json'},
  getCron: {method: 'get', path: '/account/crons/{id}.json'},
  updateCron: {method: 'patch', path: '/account/crons/{id}.json'},
  deleteCron: {method: 'delete', path: '/account/crons/{id}.json'},
  runCron: {method: 'post', path: '/account/crons/{id}/run.json'},
  listFlowProcesses: {method: 'get', path: '/connect/flow_processes.json'},
  getFlowProcess: {method: 'get', path: '/connect/flow_processes/{id}.json'},
  // the contract itself
  getOpenApiDocument: {method: 'get', path: '/svc/openapi.json'},
  getHealth: {method: 'get', path: '/svc/health'},
  apiReference: {method: 'get', path: '/svc/docs'},
  apiReferenceAsset: {method: 'get', path: '/svc/docs/{file}'},
} as const

export type OperationId = keyof typeof OPERATIONS
export type HttpMethod = (typeof OPERATIONS)[OperationId]['method']

/** `{operationId, method, path}` of a route definition. */
export function operation<K extends OperationId>(id: K): {operationId: K} & (typeof OPERATIONS)[K] {
  return {operationId: id, ...OPERATIONS[id]}
}

/** Fills `{name}` placeholders of a path template (each value URI-encoded). */
export function fillPath(template: string, params: Record<string, string | number> = {}): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name]
    if (value === undefined) throw new Error(`missing path parameter ${name} of ${template}`)
    return encodeURIComponent(String(value))
  })
}
