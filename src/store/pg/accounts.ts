import {randomBytes} from 'node:crypto'
import {applyModuleChange} from '../../core/account/set-field.js'
import type {Principal} from '../../core/auth/permissions.js'
import {notFound, validation} from '../../core/errors.js'
import {
  type AccountRow, type Named, principalQueries, type PrincipalRow, sha256, type TokenEntry, type TokenPrincipalRow,
  toAccount, toPrincipal, tokenPrincipal, toTokenEntry, toUserView, type UserRow,
} from '../accounts/rows.js'
import type {Account, AccountsRepo, NewUser, TokenKind, UserView} from '../accounts/types.js'
import {isRowId, isUniqueViolation, type PgDb, PgEpochCache, type Q} from './connection.js'

const now = () => new Date().toISOString()

/** A user with the ids of their teams, groups and department, in one query (every request resolves its caller with it). */
const PRINCIPAL_SELECT = `SELECT u.id, u.account_id, u.login, u.email, u.name, u.role, u.permissions,
  (SELECT coalesce(json_agg(ut.team_id ORDER BY ut.team_id), '[]') FROM user_teams ut JOIN teams t ON t.id = ut.team_id
    WHERE ut.user_id = u.id) AS team_ids,
  (SELECT coalesce(json_agg(ug.group_id ORDER BY ug.group_id), '[]') FROM user_groups ug JOIN groups g ON g.id = ug.group_id
    WHERE ug.user_id = u.id) AS group_ids,
  (SELECT d.id FROM departments d WHERE d.id = u.department_id) AS department_id`
const PRINCIPAL = principalQueries(PRINCIPAL_SELECT)

export class PgAccountsRepo implements AccountsRepo {
  /** Every API request authenticates: its caller is read once per cache epoch (a token revoked anywhere is seen at the next request). */
  private readonly byTokenHash: PgEpochCache<TokenEntry>
  /** The embedded backend's caller, by user id: the same epoch rule (a change of the user, a team... is seen at the next request). */
  private readonly principalRows: PgEpochCache<PrincipalRow>

  constructor(private readonly db: PgDb) {
    this.byTokenHash = new PgEpochCache(db)
    this.principalRows = new PgEpochCache(db)
  }

  async createAccount(name: string): Promise<Account> {
    const row = await this.db.tx((q) =>
      q.get<AccountRow>(`INSERT INTO accounts (name, settings, created_at) VALUES (?, '{"modules":[]}', ?) RETURNING *`, [name, now()]))
    return toAccount(row!)
  }

  async getAccount(id: number): Promise<Account | null> {
    const row = await this.db.get<AccountRow>('SELECT * FROM accounts WHERE id = ?', [id])
    return row ? toAccount(row) : null
  }

  async firstAccount(): Promise<Account | null> {
    const row = await this.db.get<AccountRow>('SELECT * FROM accounts ORDER BY id LIMIT 1')
    return row ? toAccount(row) : null
  }

  async listAccounts(): Promise<Account[]> {
    return (await this.db.all<AccountRow>('SELECT * FROM accounts ORDER BY id')).map(toAccount)
  }

  async setModules(accountId: number, modules: string[]): Promise<string[]> {
    return this.db.tx((q) => this.writeModules(q, accountId, () => modules))
  }

  async changeModule(accountId: number, action: 'add' | 'remove', module: string): Promise<string[]> {
    return this.db.tx((q) => this.writeModules(q, accountId, (current) => applyModuleChange(current, action, module)))
  }

  /** Read-modify-write of the module list, the row locked (FOR UPDATE): no lost update between instances. */
  private async writeModules(q: Q, accountId: number, change: (current: string[]) => string[]): Promise<string[]> {
    const row = await q.get<AccountRow>('SELECT * FROM accounts WHERE id = ? FOR UPDATE', [accountId])
    if (!row) throw notFound('account not found')
    const settings = toAccount(row).settings
    const modules = change(settings.modules)
    await q.run('UPDATE accounts SET settings = ? WHERE id = ?', [JSON.stringify({...settings, modules}), accountId])
    return modules
  }

  async addUser(input: NewUser): Promise<UserView> {
    let id: number
    try {
      id = await this.db.tx(async (q) => {
        if (!(await q.get('SELECT 1 FROM accounts WHERE id = ?', [input.accountId]))) throw notFound('account not found')
        if (await q.get('SELECT 1 FROM users WHERE account_id = ? AND login = ?', [input.accountId, input.login])) {
          throw validation({login: ['has already been taken']})
        }
        const departmentId = input.department ? await namedId(q, 'departments', input.accountId, input.department) : null
        const user = (await q.get<{id: number}>(
          `INSERT INTO users (account_id, login, email, name, role, permissions, department_id, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`,
          [input.accountId, input.login, input.email ?? '', input.name ?? input.login, input.role ?? 'user',
            JSON.stringify([...new Set(input.permissions ?? [])]), departmentId, now()],
        ))!
        for (const team of new Set(input.teams ?? [])) {
          await q.run('INSERT INTO user_teams (account_id, user_id, team_id) VALUES (?, ?, ?)',
            [input.accountId, user.id, await namedId(q, 'teams', input.accountId, team)])
        }
        for (const group of new Set(input.groups ?? [])) {
          await q.run('INSERT INTO user_groups (account_id, user_id, group_id) VALUES (?, ?, ?)',
            [input.accountId, user.id, await namedId(q, 'groups', input.accountId, group)])
        }
        return user.id
      })
    } catch (e) {
      // Two instances adding the same login at once: the unique index decides.
      if (isUniqueViolation(e)) throw validation({login: ['has already been taken']})
      throw e
    }
    return (await this.getUser(input.accountId, id))!
  }

  private async view(row: UserRow): Promise<UserView> {
    const [teams, groups, department] = await Promise.all([
      this.db.all<Named>(
        'SELECT t.id, t.name FROM user_teams ut JOIN teams t ON t.id = ut.team_id WHERE ut.user_id = ? ORDER BY t.id', [row.id]),
      this.db.all<Named>(
        'SELECT g.id, g.name FROM user_groups ug JOIN groups g ON g.id = ug.group_id WHERE ug.user_id = ? ORDER BY g.id', [row.id]),
      row.department_id === null
        ? Promise.resolve(undefined)
        : this.db.get<Named>('SELECT id, name FROM departments WHERE id = ?', [row.department_id]),
    ])
    return toUserView(row, teams, groups, department)
  }

  async getUser(accountId: number, userId: number): Promise<UserView | null> {
    const row = await this.db.get<UserRow>('SELECT * FROM users WHERE account_id = ? AND id = ?', [accountId, userId])
    return row ? this.view(row) : null
  }

  async findUserByLogin(accountId: number, login: string): Promise<UserView | null> {
    const row = await this.db.get<UserRow>('SELECT * FROM users WHERE account_id = ? AND login = ?', [accountId, login])
    return row ? this.view(row) : null
  }

  async listUsers(accountId: number): Promise<UserView[]> {
    const rows = await this.db.all<UserRow>('SELECT * FROM users WHERE account_id = ? ORDER BY id', [accountId])
    return Promise.all(rows.map((r) => this.view(r)))
  }

  async defaultUser(accountId: number): Promise<UserView | null> {
    const row = await this.db.get<UserRow>(
      `SELECT * FROM users WHERE account_id = ? ORDER BY CASE role WHEN 'admin' THEN 0 ELSE 1 END, id LIMIT 1`, [accountId])
    return row ? this.view(row) : null
  }

  async principal(userId: number): Promise<Principal | null> {
    if (!isRowId(userId)) return null
    const row = await this.principalRows.get(String(userId), () => this.db.get<PrincipalRow>(PRINCIPAL.byId, [userId]))
    return row ? toPrincipal(row) : null
  }

  async createToken(userId: number, kind: TokenKind = 'api', ttlSeconds?: number): Promise<string> {
    const raw = randomBytes(32).toString('base64url')
    const expires = ttlSeconds ? new Date(Date.now() + ttlSeconds * 1000).toISOString() : null
    const inserted = await this.db.tx((q) => q.run(
      `INSERT INTO tokens (account_id, user_id, token_hash, kind, expires_at, created_at)
       SELECT account_id, id, ?, ?, ?, ? FROM users WHERE id = ?`,
      [sha256(raw), kind, expires, now(), userId],
    ))
    if (inserted === 0) throw notFound('user not found')
    return raw
  }

  async authenticate(rawToken: string, kind: TokenKind = 'api'): Promise<Principal | null> {
    if (!rawToken || rawToken.length > 512) return null
    const hash = sha256(rawToken)
    const found = await this.byTokenHash.get(hash, async () => {
      const row = await this.db.get<TokenPrincipalRow>(PRINCIPAL.byToken, [hash])
      return row && toTokenEntry(row)
    })
    return tokenPrincipal(found, hash, kind, now())
  }

  async revokeToken(rawToken: string): Promise<void> {
    await this.db.tx((q) => q.run('DELETE FROM tokens WHERE token_hash = ?', [sha256(rawToken)]))
  }

  async replaceApiTokens(userId: number): Promise<{token: string; revoked: number}> {
    const raw = randomBytes(32).toString('base64url')
    const revoked = await this.db.tx(async (q) => {
      const user = await q.get<{account_id: number}>('SELECT account_id FROM users WHERE id = ? FOR UPDATE', [userId])
      if (!user) throw notFound('user not found')
      const changes = await q.run("DELETE FROM tokens WHERE user_id = ? AND kind IN ('api', 'api:read')", [userId])
      await q.run('INSERT INTO tokens (account_id, user_id, token_hash, kind, expires_at, created_at) VALUES (?, ?, ?, ?, NULL, ?)',
        [user.account_id, userId, sha256(raw), 'api', now()])
      return changes
    })
    return {token: raw, revoked}
  }

  async secret(name: string): Promise<string> {
    const found = await this.db.get<{value: string}>('SELECT value FROM server_secrets WHERE name = ?', [name])
    if (found) return found.value
    // Two instances asking at once: the first insert wins, both read the winner.
    await this.db.run('INSERT INTO server_secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING',
      [name, randomBytes(32).toString('base64url')])
    return (await this.db.get<{value: string}>('SELECT value FROM server_secrets WHERE name = ?', [name]))!.value
  }
}

/** Id of the named team/department/group of the account, created when missing (safe against a concurrent insert). */
async function namedId(q: Q, table: 'teams' | 'departments' | 'groups', accountId: number, name: string): Promise<number> {
  const inserted = await q.get<{id: number}>(
    `INSERT INTO ${table} (account_id, name) VALUES (?, ?) ON CONFLICT (account_id, name) DO NOTHING RETURNING id`, [accountId, name])
  if (inserted) return inserted.id
  return (await q.get<{id: number}>(`SELECT id FROM ${table} WHERE account_id = ? AND name = ?`, [accountId, name]))!.id
}
