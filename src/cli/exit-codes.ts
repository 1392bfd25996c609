import type {SvcError} from '../core/errors.js'

/** Exit codes of every command (docs/cli.md). */
export const EXIT = {
  error: 1,
  usage: 2,
  auth: 3,
  notFound: 4,
  validation: 5,
  server: 6,
} as const

export function exitCodeFor(error: SvcError): number {
  switch (error.code) {
    case 'usage':
      return EXIT.usage
    case 'unauthorized':
    case 'forbidden':
      return EXIT.auth
    case 'not_found':
      return EXIT.notFound
    case 'validation':
    case 'bad_request':
    case 'payload_too_large':
      return EXIT.validation
    case 'network':
    case 'internal':
    case 'rate_limited':
      return EXIT.server
    default:
      return EXIT.error
  }
}
