/**
 * The tools of `svc mcp`: each one is one operation of the contract. Its input schema is generated
 * from the operation in the OpenAPI document the server serves (path parameters, the picked query
 * parameters and members of the JSON body), so a tool takes what the API takes and the API checks it.
 * Output is the API's answer (its schema is the operation's response in the same document).
 */
import type {OperationId} from '../core/contract/operations.js'

export const GROUPS = ['dbs', 'prompts', 'apps', 'flows', 'history'] as const
export type Group = (typeof GROUPS)[number]

/** `read`: changes nothing; `write`: creates or changes; `delete`: removes (off unless allowed, then confirmed by the human). */
export type ToolKind = 'read' | 'write' | 'delete'

export interface ToolSpec {
  name: string
  group: Group
  kind: ToolKind
  op: OperationId
  description: string
  /** Writes that give the same result when repeated (PATCH). */
  idempotent?: boolean
  /** Query parameters of the operation the tool takes. */
  query?: readonly string[]
  /** Query values the tool always sends. */
  fixedQuery?: Record<string, string>
  /** Members of the JSON body the tool takes, and the envelope they go in (`{record: {...}}`); or the
   *  argument that is the whole body (`whole`: an action's input). */
  body?: {members: readonly string[]; envelope?: string} | {whole: string}
  /** Descriptions that replace the document's for some arguments (shorter, or saying more to an agent). */
  describe?: Record<string, string>
  /** Arguments the tool adds to the operation's (turned into query parameters by `toQuery`). */
  extra?: Record<string, Record<string, unknown>>
  /** Members of the answer kept (the rest is left out to spare the agent's context). */
  keep?: readonly string[]
  /** The answer is workspace data: wrapped in boundary tags. */
  data: boolean
}

const OBJECT = {type: 'object', additionalProperties: true}

export const TOOLS: readonly ToolSpec[] = [
  // ------------------------------------------------------------------------------------------ dbs
  {
    name: 'dbs_list', group: 'dbs', kind: 'read', op: 'listDbs', data: true, keep: ['id', 'name', 'code', 'updated_at'],
    description: 'List the JSON databases of the workspace (id, name, code).',
  },
  {
    name: 'dbs_schema', group: 'dbs', kind: 'read', op: 'getDb', data: true,
    keep: ['id', 'name', 'code', 'schema', 'public_methods', 'records_count'],
    description: 'A database: its schema (field types, tables) and record count. Read it before writing records.',
  },
  {
    name: 'dbs_search', group: 'dbs', kind: 'read', op: 'searchRecords', data: true,
    query: ['q', 'search_in', 'sort', 'limit', 'offset', 'table_name', 'fields'],
    extra: {filter: {...OBJECT, description: 'Exact match per field ({"status": "open"}); * or % in a value: pattern'}},
    describe: {
      q: 'Full-text fragment, or a pattern with * or %. Looks only in the indexed fields (else the fields the schema declares, else the whole record); search_in names others',
      search_in: 'Comma-separated fields q looks in instead of the indexed ones (e.g. "name,note")',
    },
    description: 'Search records of a database: full text (q, in the indexed fields unless search_in names others), filters, sort, paging. Answers flat records (fields at the top level); an empty answer to q says which fields it looked in.',
  },
  {
    name: 'dbs_get', group: 'dbs', kind: 'read', op: 'getRecord', data: true,
    description: 'One record of a database by id.',
  },
  {
    name: 'dbs_create', group: 'dbs', kind: 'write', op: 'createRecord', data: true, body: {envelope: 'record', members: ['table_name', 'data']},
    description: 'Create a record; data is checked against the database schema (422 names each bad field).',
  },
  {
    name: 'dbs_update', group: 'dbs', kind: 'write', op: 'updateRecord', idempotent: true, data: true,
    body: {envelope: 'record', members: ['table_name', 'data']},
    describe: {data: 'Fields to change (merged over the stored record)'},
    description: 'Change a record: the given fields are merged over the stored data.',
  },
  {
    name: 'dbs_delete', group: 'dbs', kind: 'delete', op: 'deleteRecord', data: false,
    description: 'Delete a record (asks the human to confirm).',
  },
  // -------------------------------------------------------------------------------------- prompts
  {
    name: 'prompts_list', group: 'prompts', kind: 'read', op: 'listPrompts', data: true, query: ['q', 'kind'],
    keep: ['id', 'name', 'code', 'kind', 'scope', 'updated_at'],
    description: 'List the prompt templates you can see (id, name, code, kind, scope).',
  },
  {
    name: 'prompts_get', group: 'prompts', kind: 'read', op: 'getPrompt', data: true,
    keep: ['id', 'name', 'code', 'content', 'kind', 'scope', 'scope_id', 'ai_placeholder', 'updated_at'],
    description: 'A prompt template by id: its Liquid content, kind and scope.',
  },
  {
    name: 'prompts_render', group: 'prompts', kind: 'read', op: 'renderPrompt', data: false, query: ['date'],
    extra: {variables: {...OBJECT, description: 'Template variables ({"topic": "sales"}); non-strings are passed as JSON'}},
    description: 'Render a prompt by code through the cascade (yours, team, department, account, system) with variables.',
  },
  {
    name: 'prompts_create', group: 'prompts', kind: 'write', op: 'createPrompt', data: true,
    body: {envelope: 'prompt', members: ['name', 'code', 'content', 'kind', 'scope']},
    keep: ['id', 'name', 'code', 'kind', 'scope', 'scope_id', 'updated_at'],
    description: 'Create a prompt template (content is Liquid).',
  },
  {
    name: 'prompts_update', group: 'prompts', kind: 'write', op: 'updatePrompt', idempotent: true, data: true,
    body: {envelope: 'prompt', members: ['name', 'code', 'content', 'kind']},
    keep: ['id', 'name', 'code', 'kind', 'scope', 'scope_id', 'updated_at'],
    description: 'Change a prompt template (its creator or an admin).',
  },
  {
    name: 'prompts_delete', group: 'prompts', kind: 'delete', op: 'deletePrompt', data: false,
    description: 'Delete a prompt template (asks the human to confirm).',
  },
  // ----------------------------------------------------------------------------------------- apps
  {
    name: 'apps_list', group: 'apps', kind: 'read', op: 'listApps', data: true, query: ['q'],
    keep: ['id', 'name', 'url_code', 'app_engine', 'active', 'updated_at'],
    description: 'List the apps of the workspace.',
  },
  {
    name: 'apps_get_source', group: 'apps', kind: 'read', op: 'getApp', data: true,
    keep: ['id', 'name', 'url_code', 'app_engine', 'css_engine', 'source_code', 'actions', 'db_code', 'updated_at'],
    description: 'An app with its source code, engines and actions.',
  },
  {
    name: 'apps_replace_source', group: 'apps', kind: 'write', op: 'replaceInApp', idempotent: false, data: true,
    body: {members: ['field', 'old_string', 'new_string', 'replace_all']},
    describe: {field: 'What to edit: source_code, prompt or fields'},
    keep: ['id', 'name', 'url_code', 'app_engine', 'updated_at'],
    description: 'Replace a string in an app\'s source and recompile it. A compile error is an error naming line and column; nothing is saved.',
  },
  {
    name: 'apps_run_action', group: 'apps', kind: 'write', op: 'runAppAction', data: true, body: {whole: 'input'},
    extra: {input: {...OBJECT, description: 'Input of the action\'s flow'}},
    describe: {id: 'App id', name: 'Action name'},
    description: 'Run an app action (its flow). Answers finished, error or pending with flow_process_id.',
  },
  {
    name: 'apps_action_status', group: 'apps', kind: 'read', op: 'getAppActionStatus', data: true, query: ['flow_process_id'],
    describe: {id: 'App id', name: 'Action name'},
    description: 'Poll the status of a pending app action run.',
  },
  // ---------------------------------------------------------------------------------------- flows
  {
    name: 'flows_list', group: 'flows', kind: 'read', op: 'listResources', data: true, query: ['q'], fixedQuery: {kind: 'svc/custom_flow'},
    keep: ['id', 'code', 'name', 'updated_at'],
    description: 'List the flows of the workspace.',
  },
  {
    name: 'flows_run', group: 'flows', kind: 'write', op: 'runFlow', data: true, body: {members: ['input']},
    describe: {id: 'Flow id', input: 'Input of the run'},
    description: 'Run a flow by hand. Answers the run (status, output, error).',
  },
  {
    name: 'flows_run_status', group: 'flows', kind: 'read', op: 'getFlowProcess', data: true,
    keep: ['id', 'flow_code', 'status', 'output', 'error', 'steps', 'started_at', 'finished_at'],
    description: 'A flow run by id: status, output, error.',
  },
  // -------------------------------------------------------------------------------------- history
  {
    name: 'history_list', group: 'history', kind: 'read', op: 'listHistory', data: true,
    query: ['kind', 'id', 'door', 'since', 'before'],
    describe: {id: 'Resource id', since: 'ISO time', before: 'Bookmark (next page)'},
    description: 'Changes, newest first: bookmark, kind, id, op, door, who, when, summary.',
  },
  {
    name: 'history_diff', group: 'history', kind: 'read', op: 'getHistoryEntry', data: true, fixedQuery: {diff: '1'},
    describe: {bookmark: 'Bookmark of the change'},
    description: 'One change: its version, the one before, and the diff.',
  },
  {
    name: 'history_restore', group: 'history', kind: 'write', op: 'restoreEntry', data: true,
    describe: {bookmark: 'Bookmark of the change'},
    description: 'Put a resource back as that change left it (a deleted one too). Undoable.',
  },
]

/** Group names from `--tools dbs,prompts` / `?tools=`; `all` or nothing: every group. Unknown names are an error. */
export function parseGroups(value: string | undefined): Group[] {
  const names = (value ?? '').split(',').map((s) => s.trim()).filter(Boolean)
  if (names.length === 0 || names.includes('all')) return [...GROUPS]
  const unknown = names.filter((n) => !(GROUPS as readonly string[]).includes(n))
  if (unknown.length) throw new Error(`unknown tool group ${unknown.map((n) => `"${n.slice(0, 40)}"`).join(', ')}; use ${GROUPS.join(', ')} or all`)
  return [...new Set(names)] as Group[]
}
