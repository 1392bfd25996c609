/**
 * The two log formats of `svc serve`. `human` (the default): lines on stderr, the access line
 * `GET /path 200 1.2ms`, extra fields as ` key=value` words, and `Listening on URL` on stdout.
 * `json` (`--log-format json`): one JSON object per line on stdout, for a log shipper — a request
 * (`"type":"request"`, src/http/middleware/access-log.ts) or an event (`"type":"event"`, with
 * `level` and `msg`), `Listening on URL` included. Neither ever holds a token, a cookie or a header.
 */
import type {RequestLogEntry} from './middleware/access-log.js'

export type LogFormat = 'human' | 'json'

export interface ServerLogger {
  log(line: string, fields?: Record<string, string | number>): void
  /** Set for `json` only: the human format keeps its access line. */
  request: ((entry: RequestLogEntry) => void) | undefined
  listening(url: string): void
}

const levelOf = (line: string) => (/^error\b/i.test(line) ? 'error' : /^warning\b/i.test(line) ? 'warn' : 'info')

export function serverLogger(format: LogFormat, out: {stdout: NodeJS.WritableStream; stderr: NodeJS.WritableStream} = process): ServerLogger {
  if (format === 'json') {
    const event = (msg: string, fields?: Record<string, string | number>) =>
      out.stdout.write(JSON.stringify({time: new Date().toISOString(), type: 'event', level: levelOf(msg), msg, ...fields}) + '\n')
    return {
      log: event,
      request: ({time, ...entry}) => out.stdout.write(JSON.stringify({time, type: 'request', ...entry}) + '\n'),
      listening: (url) => event(`Listening on ${url}`, {url}),
    }
  }
  return {
    log: (line, fields) => out.stderr.write(line + Object.entries(fields ?? {}).map(([k, v]) => ` ${k}=${v}`).join('') + '\n'),
    request: undefined,
    listening: (url) => out.stdout.write(`Listening on ${url}\n`),
  }
}
