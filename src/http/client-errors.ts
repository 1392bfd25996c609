/**
 * What Node's HTTP server answers itself, before any route: a request whose headers are over its
 * limit (431), one it cannot parse (400), one too slow to send its headers (408). Node's default
 * is a status line with no body; svc answers the API's error shape (`{"error": "..."}`, JSON) with
 * an `X-Request-Id`, so the OpenAPI document can give every answer a body (a body-less 431 on every
 * operation made generated clients type every success as possibly undefined).
 */
import {randomUUID} from 'node:crypto'
import type {Server} from 'node:http'
import type {Socket} from 'node:net'

const ANSWERS: Record<string, [number, string, string]> = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', 'request headers too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'request timeout'],
}

export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    // Nothing can be answered on a socket that is gone or already carries an answer.
    const answered = (socket as Socket & {_httpMessage?: {headersSent?: boolean}})._httpMessage?.headersSent
    if (error.code === 'ECONNRESET' || !socket.writable || answered) {
      socket.destroy()
      return
    }
    const [status, reason, message] = ANSWERS[error.code ?? ''] ?? [400, 'Bad Request', 'bad request']
    const body = JSON.stringify({error: message})
    socket.end(`HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
      `X-Request-Id: ${randomUUID()}\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`)
  })
}
