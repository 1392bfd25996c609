import {randomBytes} from 'node:crypto'
import {applyModuleChange} from '../../core/account/set-field.js'
import type {Principal} from '../../core/auth/permissions.js'
import {notFound, validation} from '../../core/errors.js'
import {EpochCache, type Sqlite, writeTx} from './connection.js'
import {
  type AccountRow, type Named, principalQueries, type PrincipalRow, sha256, type TokenEntry, type TokenPrincipalRow,
  toAccount, toPrincipal, tokenPrincipal, toTokenEntry, toUserView, type UserRow,
} from '../accounts/rows.js'
import type {Account, AccountsRepo, NewUser, TokenKind, UserView} from '../accounts/types.js'

const now = () => new Date().toISOString()

/**
 * A user with the ids of their teams, groups and department, in one query: every API request
 * resolves its caller with it (a token lookup joins it), so it stays one round trip into SQLite.
 */
const PRINCIPAL_SELECT = `SELECT u.id, u.account_id, u.login, u.email, u.name, u.role, u.permissions,
  (SELECT json_group_array(team_id) FROM (SELECT ut.team_id FROM user_teams ut JOIN teams t ON t.id = ut.team_id
    WHERE ut.user_id = u.id ORDER BY ut.team_id)) AS team_ids,
  (SELECT json_group_array(group_id) FROM (SELECT ug.group_id FROM user_groups ug JOIN groups g ON g.id = ug.group_id
    WHERE ug.user_id = u.id ORDER BY ug.group_id)) AS group_ids,
  (SELECT d.id FROM departments d WHERE d.id = u.department_id) AS department_id`
const PRINCIPAL = principalQueries(PRINCIPAL_SELECT)

export class SqliteAccountsRepo implements AccountsRepo {
  /** Every API request authenticates: its caller is read once per cache epoch (src/store/sqlite/connection.ts). */
  private readonly byTokenHash: EpochCache<TokenEntry>
  /** The embedded caller (and a session's user) by id, read once per cache epoch as the PostgreSQL driver does. */
  private readonly principalRows: EpochCache<PrincipalRow>

  constructor(private readonly db: Sqlite) {
    this.byTokenHash = new EpochCache(db)
    this.principalRows = new EpochCache(db)
  }

  async createAccount(name: string): Promise<Account> {
    const row = writeTx(this.db, () =>
      this.db.prepare(`INSERT INTO accounts (name, settings, created_at) VALUES (?, '{"modules":[]}', ?) RETURNING *`).get(name, now()),
    ) as AccountRow
    return toAccount(row)
  }

  async getAccount(id: number): Promise<Account | null> {
    const row = this.db.prepare('SELECT * FROM accounts WHERE id = ?').get(id) as AccountRow | undefined
    return row ? toAccount(row) : null
  }

  async firstAccount(): Promise<Account | null> {
    const row = this.db.prepare('SELECT * FROM accounts ORDER BY id LIMIT 1').get() as AccountRow | undefined
    return row ? toAccount(row) : null
  }

  async listAccounts(): Promise<Account[]> {
    return (this.db.prepare('SELECT * FROM accounts ORDER BY id').all() as AccountRow[]).map(toAccount)
  }

  async setModules(accountId: number, modules: string[]): Promise<string[]> {
    return writeTx(this.db, () => this.writeModules(accountId, () => modules))
  }

  async changeModule(accountId: number, action: 'add' | 'remove', module: string): Promise<string[]> {
    return writeTx(this.db, () => this.writeModules(accountId, (current) => applyModuleChange(current, action, module)))
  }

  /** Read-modify-write of the module list; call inside a write transaction. */
  private writeModules(accountId: number, change: (current: string[]) => string[]): string[] {
    const row = this.db.prepare('SELECT * FROM accounts WHERE id = ?').get(accountId) as AccountRow | undefined
    if (!row) throw notFound('account not found')
    const settings = toAccount(row).settings
    const modules = change(settings.modules)
    this.db.prepare('UPDATE accounts SET settings = ? WHERE id = ?').run(JSON.stringify({...settings, modules}), accountId)
    return modules
  }

  async addUser(input: NewUser): Promise<UserView> {
    const id = writeTx(this.db, () => {
      if (!this.db.prepare('SELECT 1 FROM accounts WHERE id = ?').get(input.accountId)) throw notFound('account not found')
      if (this.db.prepare('SELECT 1 FROM users WHERE account_id = ? AND login = ?').get(input.accountId, input.login)) {
        throw validation({login: ['has already been taken']})
      }
      const departmentId = input.department ? this.namedId('departments', input.accountId, input.department) : null
      const user = this.db
        .prepare(
          `INSERT INTO users (account_id, login, email, name, role, permissions, department_id, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
        )
        .get(
          input.accountId, input.login, input.email ?? '', input.name ?? input.login, input.role ?? 'user',
          JSON.stringify([...new Set(input.permissions ?? [])]), departmentId, now(),
        ) as {id: number}
      for (const team of new Set(input.teams ?? [])) {
        this.db.prepare('INSERT INTO user_teams (account_id, user_id, team_id) VALUES (?, ?, ?)')
          .run(input.accountId, user.id, this.namedId('teams', input.accountId, team))
      }
      for (const group of new Set(input.groups ?? [])) {
        this.db.prepare('INSERT INTO user_groups (account_id, user_id, group_id) VALUES (?, ?, ?)')
          .run(input.accountId, user.id, this.namedId('groups', input.accountId, group))
      }
      return user.id
    })
    return (await this.getUser(input.accountId, id))!
  }

  /** Id of the named team/department/group of the account, created when missing. Call inside a write tx. */
  private namedId(table: 'teams' | 'departments' | 'groups', accountId: number, name: string): number {
    const found = this.db.prepare(`SELECT id FROM ${table} WHERE account_id = ? AND name = ?`).get(accountId, name) as {id: number} | undefined
    if (found) return found.id
    return (this.db.prepare(`INSERT INTO ${table} (account_id, name) VALUES (?, ?) RETURNING id`).get(accountId, name) as {id: number}).id
  }

  private view(row: UserRow): UserView {
    const teams = this.db.prepare(
      'SELECT t.id, t.name FROM user_teams ut JOIN teams t ON t.id = ut.team_id WHERE ut.user_id = ? ORDER BY t.id',
    ).all(row.id) as Named[]
    const groups = this.db.prepare(
      'SELECT g.id, g.name FROM user_groups ug JOIN groups g ON g.id = ug.group_id WHERE ug.user_id = ? ORDER BY g.id',
    ).all(row.id) as Named[]
    const department = row.department_id === null
      ? undefined
      : (this.db.prepare('SELECT id, name FROM departments WHERE id = ?').get(row.department_id) as Named | undefined)
    return toUserView(row, teams, groups, department)
  }

  async getUser(accountId: number, userId: number): Promise<UserView | null> {
    const row = this.db.prepare('SELECT * FROM users WHERE account_id = ? AND id = ?').get(accountId, userId) as UserRow | undefined
    return row ? this.view(row) : null
  }

  async findUserByLogin(accountId: number, login: string): Promise<UserView | null> {
    const row = this.db.prepare('SELECT * FROM users WHERE account_id = ? AND login = ?').get(accountId, login) as UserRow | undefined
    return row ? this.view(row) : null
  }

  async listUsers(accountId: number): Promise<UserView[]> {
    return (this.db.prepare('SELECT * FROM users WHERE account_id = ? ORDER BY id').all(accountId) as UserRow[]).map((r) => this.view(r))
  }

  async defaultUser(accountId: number): Promise<UserView | null> {
    const row = this.db.prepare(
      `SELECT * FROM users WHERE account_id = ? ORDER BY CASE role WHEN 'admin' THEN 0 ELSE 1 END, id LIMIT 1`,
    ).get(accountId) as UserRow | undefined
    return row ? this.view(row) : null
  }

  async principal(userId: number): Promise<Principal | null> {
    const row = this.principalRows.get(String(userId), () => this.db.prepare(PRINCIPAL.byId).get(userId) as PrincipalRow | undefined)
    return row ? toPrincipal(row) : null
  }

  async createToken(userId: number, kind: TokenKind = 'api', ttlSeconds?: number): Promise<string> {
    const raw = randomBytes(32).toString('base64url')
    writeTx(this.db, () => {
      const user = this.db.prepare('SELECT account_id FROM users WHERE id = ?').get(userId) as {account_id: number} | undefined
      if (!user) throw notFound('user not found')
      const expires = ttlSeconds ? new Date(Date.now() + ttlSeconds * 1000).toISOString() : null
      this.db.prepare('INSERT INTO tokens (account_id, user_id, token_hash, kind, expires_at, created_at) VALUES (?, ?, ?, ?, ?, ?)')
        .run(user.account_id, userId, sha256(raw), kind, expires, now())
    })
    return raw
  }

  async authenticate(rawToken: string, kind: TokenKind = 'api'): Promise<Principal | null> {
    if (!rawToken || rawToken.length > 512) return null
    const hash = sha256(rawToken)
    const found = this.byTokenHash.get(hash, () => {
      const row = this.db.prepare(PRINCIPAL.byToken).get(hash) as TokenPrincipalRow | undefined
      return row && toTokenEntry(row)
    })
    return tokenPrincipal(found, hash, kind, now())
  }

  async revokeToken(rawToken: string): Promise<void> {
    writeTx(this.db, () => this.db.prepare('DELETE FROM tokens WHERE token_hash = ?').run(sha256(rawToken)))
  }

  async replaceApiTokens(userId: number): Promise<{token: string; revoked: number}> {
    const raw = randomBytes(32).toString('base64url')
    const revoked = writeTx(this.db, () => {
      const user = this.db.prepare('SELECT account_id FROM users WHERE id = ?').get(userId) as {account_id: number} | undefined
      if (!user) throw notFound('user not found')
      const {changes} = this.db.prepare("DELETE FROM tokens WHERE user_id = ? AND kind IN ('api', 'api:read')").run(userId)
      this.db.prepare('INSERT INTO tokens (account_id, user_id, token_hash, kind, expires_at, created_at) VALUES (?, ?, ?, ?, NULL, ?)')
        .run(user.account_id, userId, sha256(raw), 'api', now())
      return changes
    })
    return {token: raw, revoked}
  }

  async secret(name: string): Promise<string> {
    return writeTx(this.db, () => {
      const row = this.db.prepare('SELECT value FROM server_secrets WHERE name = ?').get(name) as {value: string} | undefined
      if (row) return row.value
      const value = randomBytes(32).toString('base64url')
      this.db.prepare('INSERT INTO server_secrets (name, value) VALUES (?, ?)').run(name, value)
      return value
    })
  }
}
