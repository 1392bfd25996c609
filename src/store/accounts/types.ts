import type {Principal, Role} from '../../core/auth/permissions.js'

export interface Account {
  id: number
  name: string
  settings: {modules: string[]; [key: string]: unknown}
  created_at: string
}

export interface NewUser {
  accountId: number
  login: string
  role?: Role
  permissions?: string[]
  /** Team names; created in the account when missing. */
  teams?: string[]
  /** Department name; created in the account when missing. */
  department?: string | null
  groups?: string[]
  email?: string
  name?: string
}

/** Public shape of a user (never carries a token): the contract's (src/core/contract/account.ts). */
export type {UserView} from '../../core/contract/account.js'
import type {UserView} from '../../core/contract/account.js'

/** `api` (bearer), `api:read` (bearer that may change nothing), `session` (console cookie), `app:<app id>`
 *  (an app origin's sign-in: nothing else), `handover:<app id>` (one use, minutes: carries a console
 *  sign-in over to that app's origin). */
export type TokenKind = 'api' | typeof READ_ONLY_TOKEN | 'session' | `app:${string}` | `handover:${string}`
/** A bearer token whose requests are all refused when they would write (src/http/middleware/read-only.ts). */
export const READ_ONLY_TOKEN = 'api:read'
/**
 * The kind of an app origin's sign-in (`app:<id>`) and of the handover that mints it
 * (`handover:<id>`); from a read-only caller both end in `:read`, and every write made through
 * such a sign-in is refused like the read-only token's own (docs/security.md "Attack round 4").
 */
export const appSessionKind = (appId: string, readOnly: boolean): TokenKind => `app:${appId}${readOnly ? ':read' : ''}`
export const handoverKind = (appId: string, readOnly: boolean): TokenKind => `handover:${appId}${readOnly ? ':read' : ''}`

export interface AccountsRepo {
  createAccount(name: string): Promise<Account>
  getAccount(id: number): Promise<Account | null>
  firstAccount(): Promise<Account | null>
  listAccounts(): Promise<Account[]>
  /** Replaces account.settings.modules; returns the new array. */
  setModules(accountId: number, modules: string[]): Promise<string[]>
  /** Adds or removes one module in a single write transaction (no lost update); returns the new array. */
  changeModule(accountId: number, action: 'add' | 'remove', module: string): Promise<string[]>

  addUser(input: NewUser): Promise<UserView>
  getUser(accountId: number, userId: number): Promise<UserView | null>
  findUserByLogin(accountId: number, login: string): Promise<UserView | null>
  listUsers(accountId: number): Promise<UserView[]>
  /** The account's first admin (lowest id), else its first user. */
  defaultUser(accountId: number): Promise<UserView | null>
  principal(userId: number): Promise<Principal | null>

  /** Mints a random token (32 bytes, base64url) for the user; only its SHA-256 is stored. */
  createToken(userId: number, kind?: TokenKind, ttlSeconds?: number): Promise<string>
  /** The user a raw token of this kind belongs to, or null (unknown, expired, another kind). */
  authenticate(rawToken: string, kind?: TokenKind): Promise<Principal | null>
  revokeToken(rawToken: string): Promise<void>
  /** Revokes every API token of the user (read-only ones too) and mints a new one, in one transaction; `revoked` counts the old ones. */
  replaceApiTokens(userId: number): Promise<{token: string; revoked: number}>

  /**
   * Revokes every token of a user of the account — API tokens, console sessions, app sign-ins —
   * in one write; answers how many, or null when the account has no such user.
   */
  revokeAllTokens(accountId: number, userId: number): Promise<number | null>

  /** The user's settings: key → parsed JSON value. */
  userSettings(userId: number): Promise<Record<string, unknown>>
  /** Stores (JSON text) or removes (null) settings of the user in one write; more than MAX_SETTINGS is a 422, nothing written. */
  changeUserSettings(accountId: number, userId: number, changes: Map<string, string | null>): Promise<Record<string, unknown>>

  /** A per-data-dir secret (cookie signing, ...), created on first use and shared by every process. */
  secret(name: string): Promise<string>
}

export type {Principal}
