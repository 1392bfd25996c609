/**
 * SQLite failures that are about the machine, not the request, become SvcError here, inside the
 * driver (as the PostgreSQL driver maps its own in pg/connection.ts): a full disk 507, a busy or
 * failing disk 503 (the HTTP layer adds Retry-After). The transaction was rolled back, so nothing
 * was written. Other errors pass through as they are.
 */
import {SvcError} from '../../core/errors.js'

export function mapSqliteError(error: unknown): unknown {
  const code = (error as {code?: unknown} | null)?.code
  if (typeof code !== 'string' || !code.startsWith('SQLITE_')) return error
  if (code === 'SQLITE_FULL') {
    return withCause(new SvcError('storage_full', 507, 'storage full: the server\'s disk has no space left; nothing was written'), error)
  }
  if (code.startsWith('SQLITE_IOERR') || code.startsWith('SQLITE_BUSY') || code === 'SQLITE_READONLY' || code === 'SQLITE_CANTOPEN') {
    return withCause(new SvcError('unavailable', 503, 'storage unavailable: the server could not write to its disk; nothing was written'), error)
  }
  return error
}

function withCause(mapped: SvcError, cause: unknown): SvcError {
  Object.defineProperty(mapped, 'cause', {value: cause, enumerable: false})
  return mapped
}
