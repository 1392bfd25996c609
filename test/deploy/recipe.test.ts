// docs/deploy.md's recipe, run where a test can run it (issue 25 item 3): the `svc serve` line of its
// systemd unit is started as written (a temp data dir and port 0 in place of /var/lib/svc and %i),
// and a hosted app opened through /a/CODE goes to its own https origin under the recipe's apps name,
// which the proxy configurations (Caddy and nginx) serve with the certificate of that wildcard name.
import {spawn} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {describe, expect, it} from 'vitest'
import {BIN, ROOT, cliEnv, svc, killOnExit} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'

const doc = readFileSync(join(ROOT, 'docs', 'deploy.md'), 'utf8')

/** The words of the `ExecStart=` line of the recipe's systemd unit, after the binary. */
function execStart(): string[] {
  const line = /^ExecStart=(\S+) (.*)$/m.exec(doc)
  expect(line, 'docs/deploy.md has a systemd unit with ExecStart=').not.toBeNull()
  expect(line![1]).toMatch(/\/svc$/)
  return line![2]!.trim().split(/\s+/)
}

const flag = (words: string[], name: string) => {
  const i = words.indexOf(name)
  return i >= 0 ? words[i + 1] : undefined
}

/** A spawned `svc serve`: its URL once listening, everything it wrote before that, and stop(). */
function serve(args: string[], env: Record<string, string> = {}): Promise<{url?: string; output: string; stop(): Promise<void>}> {
  return new Promise((resolve) => {
    const child = killOnExit(spawn(process.execPath, [BIN, ...args], {env: cliEnv(env)}))
    let output = ''
    let done = false
    const stop = () => new Promise<void>((stopped) => {
      if (child.exitCode !== null || child.signalCode !== null) return stopped()
      child.once('exit', () => stopped())
      child.kill('SIGTERM')
    })
    const onData = (d: Buffer) => {
      output += d.toString()
      const m = /Listening on (http:\/\/\S+)/.exec(output)
      if (m && !done) {
        done = true
        resolve({url: m[1], output, stop})
      }
    }
    child.stdout.on('data', onData)
    child.stderr.on('data', onData)
    child.on('exit', () => {
      if (!done) {
        done = true
        resolve({output, stop})
      }
    })
  })
}

describe('docs/deploy.md', () => {
  it('its systemd unit gives --public-url and --apps-url, and the proxies serve both names', () => {
    const words = execStart()
    const publicUrl = flag(words, '--public-url')
    const appsUrl = flag(words, '--apps-url')
    expect(publicUrl).toMatch(/^https:\/\//)
    expect(appsUrl).toMatch(/^https:\/\/\{code\}\./)
    const appsHost = new URL(appsUrl!.replace('{code}', 'x')).hostname.replace(/^x\./, '')
    const mainHost = new URL(publicUrl!).hostname
    // Caddy: one site block for both names, with a certificate for the wildcard name (DNS challenge).
    const caddy = /cat > \/etc\/caddy\/Caddyfile <<'EOF'\n([\s\S]*?)\nEOF/.exec(doc)?.[1] ?? ''
    expect(caddy.split('\n')[0]).toContain(mainHost)
    expect(caddy.split('\n')[0]).toContain(`*.${appsHost}`)
    expect(caddy).toMatch(/tls \{\s*dns /)
    // nginx: both names, and a certificate that covers the wildcard name.
    const nginx = /```nginx\n([\s\S]*?)```/.exec(doc)?.[1] ?? ''
    expect(nginx).toMatch(new RegExp(`server_name [^;]*${mainHost.replace(/\./g, '\\.')}[^;]*\\*\\.${appsHost.replace(/\./g, '\\.')}`))
    expect(doc).toContain(`-d '*.${appsHost}'`)
    // A fresh Debian used as root: no sudo; one Debian release named throughout.
    const shell = [...doc.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]).join('\n')
    expect(shell).toContain('runuser -u postgres -- psql')
    expect(shell).not.toMatch(/\bsudo\b/)
    const releases = new Set([...doc.matchAll(/Debian (\d+)/g)].map((m) => m[1]))
    expect([...releases]).toHaveLength(1)
  })

  it('svc serve accepts the unit\'s flags, says nothing about --apps-url, and sends /a/CODE to the app\'s https origin', async () => {
    const data = tempDir()
    const words = execStart().map((w) => (w === '%i' ? '0' : w === '/var/lib/svc' ? data : w))
    const admin = await svc(['admin', 'user', 'add', 'admin', '--role', 'admin', '--data', data, '--json'])
    expect(admin.code, admin.stderr).toBe(0)
    const server = await serve(words)
    try {
      expect(server.url, server.output).toBeDefined()
      expect(server.output).not.toContain('--apps-url')
      const headers = {authorization: `Bearer ${admin.json.token}`, 'content-type': 'application/json'}
      const created = await fetch(`${server.url}/svc/apps.json`, {method: 'POST', headers,
        body: JSON.stringify({app: {name: 'Code', url_code: 'code', app_engine: 'html', css_engine: 'none', public: true, source_code: '<p>hi</p>'}})})
      expect(created.status, await created.clone().text()).toBe(201)
      const res = await fetch(`${server.url}/a/code`, {redirect: 'manual'})
      expect(res.status).toBe(302)
      const appsUrl = flag(words, '--apps-url')!
      expect(res.headers.get('location')).toBe(`${appsUrl.replace('{code}', 'code')}/`)
    } finally {
      await server.stop()
    }
  }, 120_000)
})

describe('svc serve --public-url without --apps-url', () => {
  it('warns at start that apps would be sent to *.localhost, naming the flag to add', async () => {
    const server = await serve(['serve', '--port', '0', '--data', tempDir(), '--public-url', 'https://svc.example.com'])
    await server.stop()
    expect(server.url, server.output).toBeDefined()
    expect(server.output).toMatch(/warning: .*--apps-url/i)
    expect(server.output).toContain('localhost')
  }, 120_000)

  it('says nothing with a loopback --public-url (apps on *.localhost work there)', async () => {
    const server = await serve(['serve', '--port', '0', '--data', tempDir(), '--public-url', 'http://localhost:4000'])
    await server.stop()
    expect(server.url, server.output).toBeDefined()
    expect(server.output).not.toContain('--apps-url')
  }, 120_000)
})
