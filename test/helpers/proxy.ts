/**
 * A proxy in front of a real `svc serve`: every request is passed on as it came (method, headers,
 * body) and answered with the server's answer, after `before(req)` ran — the place a test makes
 * someone else's change at the moment a write passes through.
 */
import {createServer, type IncomingMessage} from 'node:http'

export async function startProxy(target: string, before: (req: IncomingMessage) => Promise<void>): Promise<{url: string; close(): Promise<void>}> {
  const proxy = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    await before(req)
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => !['host', 'connection', 'content-length'].includes(k)).map(([k, v]) => [k, String(v)]))
    const upstream = await fetch(`${target}${req.url}`, {method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined})
    res.writeHead(upstream.status, Object.fromEntries([...upstream.headers].filter(([k]) => !['content-encoding', 'content-length', 'transfer-encoding'].includes(k))))
    res.end(Buffer.from(await upstream.arrayBuffer()))
  })
  await new Promise<void>((ok) => proxy.listen(0, '127.0.0.1', ok))
  return {
    url: `http://127.0.0.1:${(proxy.address() as {port: number}).port}`,
    close: () => new Promise<void>((ok) => proxy.close(() => ok())),
  }
}
