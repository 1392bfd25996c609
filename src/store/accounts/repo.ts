/** The accounts area's repository (accounts, users, teams, groups, departments, tokens, server secrets), written once over the SQL port. */
import {randomBytes} from 'node:crypto'
import {applyModuleChange} from '../../core/account/set-field.js'
import type {Principal} from '../../core/auth/permissions.js'
import {notFound, validation} from '../../core/errors.js'
import {MAX_SETTINGS, tooManySettings} from '../../core/account/user-settings.js'
import {type Dialect, type EpochCache, isRowId, type SqlPort, type TxBody, type TxSql, txUnique} from '../sql/port.js'
import {
  type AccountRow, type Named, principalQueries, type PrincipalRow, sha256, type TokenEntry, type TokenPrincipalRow,
  toAccount, toPrincipal, tokenPrincipal, toTokenEntry, toUserView, type UserRow,
} from './rows.js'
import type {JournalWho} from '../../core/journal/types.js'
import {appendEntry, appendRow, JournalContext} from '../journal/writer.js'
import {READ_ONLY_TOKEN, type Account, type AccountsRepo, type NewUser, type TokenKind, type UserView} from './types.js'

const now = () => new Date().toISOString()
const loginTaken = () => validation({login: ['has already been taken']})

/**
 * API tokens are journaled as events (issued, revoked; docs/history.md "Users and tokens"): the row
 * without its hash. Console and app sessions and handovers are sign-ins, not changes: not journaled.
 */
const journaledToken = (kind: unknown) => kind === 'api' || kind === READ_ONLY_TOKEN
/** Appends the revocation of each API token among `rows` (tokens just deleted, as DELETE … RETURNING * reads them). */
function* journalRevoked(q: TxSql, who: JournalWho, rows: Record<string, unknown>[]): TxBody<void> {
  for (const row of rows) {
    if (journaledToken(row.kind)) yield* appendEntry(q, who, {accountId: Number(row.account_id), kind: 'token', id: Number(row.id), op: 'delete', row, gone: true})
  }
}

/**
 * A user with the ids of their teams, groups and department, in one query: every API request
 * resolves its caller with it (a token lookup joins it), so it stays one round trip.
 */
const principalSelect = (d: Dialect) => `SELECT u.id, u.account_id, u.login, u.email, u.name, u.role, u.permissions,
  (SELECT ${d.jsonArrayAgg('ut.team_id', 'ut.team_id')} FROM user_teams ut JOIN teams t ON t.id = ut.team_id
    WHERE ut.user_id = u.id) AS team_ids,
  (SELECT ${d.jsonArrayAgg('ug.group_id', 'ug.group_id')} FROM user_groups ug JOIN groups g ON g.id = ug.group_id
    WHERE ug.user_id = u.id) AS group_ids,
  (SELECT d.id FROM departments d WHERE d.id = u.department_id) AS department_id`

export class SqlAccountsRepo implements AccountsRepo {
  private readonly principalSql: {byId: string; byToken: string}
  /** Every API request authenticates: its caller is read once per cache epoch (a token revoked anywhere is seen at the next request). */
  private readonly byTokenHash: EpochCache<TokenEntry>
  /** The embedded caller (and a session's user) by id: the same epoch rule (a change of the user, a team... is seen at the next request). */
  private readonly principalRows: EpochCache<PrincipalRow>

  constructor(private readonly sql: SqlPort, private readonly journal = new JournalContext()) {
    this.principalSql = principalQueries(principalSelect(sql.dialect))
    this.byTokenHash = sql.epochCache()
    this.principalRows = sql.epochCache()
  }

  async createAccount(name: string): Promise<Account> {
    const row = await this.sql.write<AccountRow>(
      `INSERT INTO accounts (name, settings, created_at) VALUES (?, '{"modules":[]}', ?) RETURNING *`, [name, now()])
    return toAccount(row!)
  }

  async getAccount(id: number): Promise<Account | null> {
    const row = await this.sql.get<AccountRow>('SELECT * FROM accounts WHERE id = ?', [id])
    return row ? toAccount(row) : null
  }

  async firstAccount(): Promise<Account | null> {
    const row = await this.sql.get<AccountRow>('SELECT * FROM accounts ORDER BY id LIMIT 1')
    return row ? toAccount(row) : null
  }

  async listAccounts(): Promise<Account[]> {
    return (await this.sql.all<AccountRow>('SELECT * FROM accounts ORDER BY id')).map(toAccount)
  }

  async setModules(accountId: number, modules: string[]): Promise<string[]> {
    return this.writeModules(accountId, () => modules)
  }

  async changeModule(accountId: number, action: 'add' | 'remove', module: string): Promise<string[]> {
    return this.writeModules(accountId, (current) => applyModuleChange(current, action, module))
  }

  /** Read-modify-write of the module list, the row locked while it is read: no lost update between instances. */
  private writeModules(accountId: number, change: (current: string[]) => string[]): Promise<string[]> {
    const {forUpdate} = this.sql.dialect
    return this.sql.tx(function* (q) {
      const row = yield* q.get<AccountRow>(`SELECT * FROM accounts WHERE id = ?${forUpdate}`, [accountId])
      if (!row) throw notFound('account not found')
      const settings = toAccount(row).settings
      const modules = change(settings.modules)
      yield* q.run('UPDATE accounts SET settings = ? WHERE id = ?', [JSON.stringify({...settings, modules}), accountId])
      return modules
    })
  }

  async addUser(input: NewUser): Promise<UserView> {
    const who = this.journal.current()
    // Two instances adding the same login at once: the unique index decides.
    const id = await txUnique(this.sql, function* (q) {
      if (!(yield* q.get('SELECT 1 FROM accounts WHERE id = ?', [input.accountId]))) throw notFound('account not found')
      if (yield* q.get('SELECT 1 FROM users WHERE account_id = ? AND login = ?', [input.accountId, input.login])) {
        throw loginTaken()
      }
      const departmentId = input.department ? yield* namedId(q, 'departments', input.accountId, input.department) : null
      const user = (yield* q.get<{id: number}>(
        `INSERT INTO users (account_id, login, email, name, role, permissions, department_id, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
        [input.accountId, input.login, input.email ?? '', input.name ?? input.login, input.role ?? 'user',
          JSON.stringify([...new Set(input.permissions ?? [])]), departmentId, now()],
      ))!
      for (const team of new Set(input.teams ?? [])) {
        const teamId = yield* namedId(q, 'teams', input.accountId, team)
        yield* q.run('INSERT INTO user_teams (account_id, user_id, team_id) VALUES (?, ?, ?)', [input.accountId, user.id, teamId])
      }
      for (const group of new Set(input.groups ?? [])) {
        const groupId = yield* namedId(q, 'groups', input.accountId, group)
        yield* q.run('INSERT INTO user_groups (account_id, user_id, group_id) VALUES (?, ?, ?)', [input.accountId, user.id, groupId])
      }
      yield* appendRow(q, who, {accountId: input.accountId, kind: 'user', id: user.id, op: 'create'})
      return user.id
    }, loginTaken)
    return (await this.getUser(input.accountId, id))!
  }

  private async view(row: UserRow): Promise<UserView> {
    const [teams, groups, department] = await Promise.all([
      this.sql.all<Named>(
        'SELECT t.id, t.name FROM user_teams ut JOIN teams t ON t.id = ut.team_id WHERE ut.user_id = ? ORDER BY t.id', [row.id]),
      this.sql.all<Named>(
        'SELECT g.id, g.name FROM user_groups ug JOIN groups g ON g.id = ug.group_id WHERE ug.user_id = ? ORDER BY g.id', [row.id]),
      row.department_id === null
        ? Promise.resolve(undefined)
        : this.sql.get<Named>('SELECT id, name FROM departments WHERE id = ?', [row.department_id]),
    ])
    return toUserView(row, teams, groups, department)
  }

  async getUser(accountId: number, userId: number): Promise<UserView | null> {
    const row = await this.sql.get<UserRow>('SELECT * FROM users WHERE account_id = ? AND id = ?', [accountId, userId])
    return row ? this.view(row) : null
  }

  async findUserByLogin(accountId: number, login: string): Promise<UserView | null> {
    const row = await this.sql.get<UserRow>('SELECT * FROM users WHERE account_id = ? AND login = ?', [accountId, login])
    return row ? this.view(row) : null
  }

  async listUsers(accountId: number): Promise<UserView[]> {
    const rows = await this.sql.all<UserRow>('SELECT * FROM users WHERE account_id = ? ORDER BY id', [accountId])
    return Promise.all(rows.map((r) => this.view(r)))
  }

  async defaultUser(accountId: number): Promise<UserView | null> {
    const row = await this.sql.get<UserRow>(
      `SELECT * FROM users WHERE account_id = ? ORDER BY CASE role WHEN 'admin' THEN 0 ELSE 1 END, id LIMIT 1`, [accountId])
    return row ? this.view(row) : null
  }

  async principal(userId: number): Promise<Principal | null> {
    if (!isRowId(userId)) return null
    const row = await this.principalRows.get(String(userId), () => this.sql.get<PrincipalRow>(this.principalSql.byId, [userId]))
    return row ? toPrincipal(row) : null
  }

  async createToken(userId: number, kind: TokenKind = 'api', ttlSeconds?: number): Promise<string> {
    if (!isRowId(userId)) throw notFound('user not found')
    const raw = randomBytes(32).toString('base64url')
    const expires = ttlSeconds ? new Date(Date.now() + ttlSeconds * 1000).toISOString() : null
    const insert = `INSERT INTO tokens (account_id, user_id, token_hash, kind, expires_at, created_at)
       SELECT account_id, id, ?, ?, ?, ? FROM users WHERE id = ?`
    const params = [sha256(raw), kind, expires, now(), userId]
    if (!journaledToken(kind)) {
      // A sign-in (session, app session, handover): one statement, not journaled.
      if ((await this.sql.run(insert, params)) === 0) throw notFound('user not found')
      return raw
    }
    const who = this.journal.current()
    const inserted = await this.sql.tx(function* (q) {
      const row = yield* q.get<Record<string, unknown>>(`${insert} RETURNING *`, params)
      if (row) yield* appendEntry(q, who, {accountId: Number(row.account_id), kind: 'token', id: Number(row.id), op: 'create', row})
      return !!row
    })
    if (!inserted) throw notFound('user not found')
    return raw
  }

  async authenticate(rawToken: string, kind: TokenKind = 'api'): Promise<Principal | null> {
    if (!rawToken || rawToken.length > 512) return null
    const hash = sha256(rawToken)
    const found = await this.byTokenHash.get(hash, async () => {
      const row = await this.sql.get<TokenPrincipalRow>(this.principalSql.byToken, [hash])
      return row && toTokenEntry(row)
    })
    return tokenPrincipal(found, hash, kind, now())
  }

  async revokeToken(rawToken: string): Promise<void> {
    const who = this.journal.current()
    const hash = sha256(rawToken)
    await this.sql.tx(function* (q) {
      yield* journalRevoked(q, who, yield* q.all<Record<string, unknown>>('DELETE FROM tokens WHERE token_hash = ? RETURNING *', [hash]))
    })
  }

  async replaceApiTokens(userId: number): Promise<{token: string; revoked: number}> {
    const raw = randomBytes(32).toString('base64url')
    const {forUpdate} = this.sql.dialect
    const who = this.journal.current()
    const revoked = await this.sql.tx(function* (q) {
      const user = yield* q.get<{account_id: number}>(`SELECT account_id FROM users WHERE id = ?${forUpdate}`, [userId])
      if (!user) throw notFound('user not found')
      const gone = yield* q.all<Record<string, unknown>>("DELETE FROM tokens WHERE user_id = ? AND kind IN ('api', 'api:read') RETURNING *", [userId])
      yield* journalRevoked(q, who, gone)
      const row = (yield* q.get<Record<string, unknown>>('INSERT INTO tokens (account_id, user_id, token_hash, kind, expires_at, created_at) VALUES (?, ?, ?, ?, NULL, ?) RETURNING *',
        [user.account_id, userId, sha256(raw), 'api', now()]))!
      yield* appendEntry(q, who, {accountId: Number(user.account_id), kind: 'token', id: Number(row.id), op: 'create', row})
      return gone.length
    })
    return {token: raw, revoked}
  }

  async revokeAllTokens(accountId: number, userId: number): Promise<number | null> {
    const {forUpdate} = this.sql.dialect
    const who = this.journal.current()
    return this.sql.tx(function* (q) {
      if (!(yield* q.get(`SELECT 1 FROM users WHERE id = ? AND account_id = ?${forUpdate}`, [userId, accountId]))) return null
      const gone = yield* q.all<Record<string, unknown>>('DELETE FROM tokens WHERE user_id = ? AND account_id = ? RETURNING *', [userId, accountId])
      yield* journalRevoked(q, who, gone)
      return gone.length
    })
  }

  async userSettings(userId: number): Promise<Record<string, unknown>> {
    const rows = await this.sql.all<{key: string; value: string}>('SELECT key, value FROM user_settings WHERE user_id = ? ORDER BY key', [userId])
    return Object.fromEntries(rows.map((r) => [r.key, JSON.parse(r.value)]))
  }

  async changeUserSettings(accountId: number, userId: number, changes: Map<string, string | null>): Promise<Record<string, unknown>> {
    const {forUpdate} = this.sql.dialect
    await this.sql.tx(function* (q) {
      // The user's row is locked: two PATCHes of one user count their settings one after the other.
      yield* q.get(`SELECT 1 FROM users WHERE id = ?${forUpdate}`, [userId])
      for (const [key, value] of changes) {
        if (value === null) yield* q.run('DELETE FROM user_settings WHERE user_id = ? AND key = ?', [userId, key])
        else {
          yield* q.run(`INSERT INTO user_settings (user_id, account_id, key, value, updated_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (user_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at`, [userId, accountId, key, value, now()])
        }
      }
      const row = yield* q.get<{n: string | number}>('SELECT count(*) AS n FROM user_settings WHERE user_id = ?', [userId])
      if (Number(row?.n ?? 0) > MAX_SETTINGS) tooManySettings()
    })
    return this.userSettings(userId)
  }

  async secret(name: string): Promise<string> {
    const found = await this.sql.get<{value: string}>('SELECT value FROM server_secrets WHERE name = ?', [name])
    if (found) return found.value
    // Two instances (or processes) asking at once: the first insert wins, both read the winner.
    await this.sql.run('INSERT INTO server_secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING',
      [name, randomBytes(32).toString('base64url')])
    return (await this.sql.get<{value: string}>('SELECT value FROM server_secrets WHERE name = ?', [name]))!.value
  }
}

/** Id of the named team/department/group of the account, created when missing (safe against a concurrent insert). */
function* namedId(q: TxSql, table: 'teams' | 'departments' | 'groups', accountId: number, name: string): TxBody<number> {
  const select = `SELECT id FROM ${table} WHERE account_id = ? AND name = ?`
  const found = yield* q.get<{id: number}>(select, [accountId, name])
  if (found) return found.id
  const inserted = yield* q.get<{id: number}>(
    `INSERT INTO ${table} (account_id, name) VALUES (?, ?) ON CONFLICT (account_id, name) DO NOTHING RETURNING id`, [accountId, name])
  return inserted?.id ?? (yield* q.get<{id: number}>(select, [accountId, name]))!.id
}
