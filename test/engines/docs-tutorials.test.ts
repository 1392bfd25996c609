// Issue 30: every block of docs/apps.md "Tutorials" runs as a newcomer pastes it: the file blocks
// are written, the `svc` lines run against a server, and each app opens in Chromium with no error
// and changes on input or over time.
import {mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import {dirname, join} from 'node:path'
import {afterAll, beforeAll, expect, it} from 'vitest'
import {chromiumNotice, describeWithChromium, launchChromium} from '../helpers/browser.js'
import {svc, svcServe, type ServeProcess} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'

const DOC = join(import.meta.dirname, '..', '..', 'docs', 'apps.md')

interface Block {
  info: string
  text: string
  /** `file=<path>` of the info string. */
  file?: string
}

/** The fenced blocks of the section whose heading starts with `heading`, in order. */
function sectionBlocks(markdown: string, heading: string): Block[] {
  const start = markdown.indexOf(`\n${heading}`)
  if (start < 0) throw new Error(`no section ${heading}`)
  const rest = markdown.slice(start + 1)
  const next = rest.slice(heading.length).search(/\n## /)
  const section = next < 0 ? rest : rest.slice(0, heading.length + next)
  return [...section.matchAll(/^```([^\n]*)\n([\s\S]*?)^```$/gm)].map((m) => ({
    info: m[1]!.trim(), text: m[2]!, file: /(?:^|\s)file=(\S+)/.exec(m[1]!)?.[1],
  }))
}

const blocks = sectionBlocks(readFileSync(DOC, 'utf8'), '## Tutorials')

it('the tutorials section holds files and svc lines only (nothing a test cannot run)', () => {
  expect(blocks.length).toBeGreaterThan(0)
  for (const block of blocks) {
    if (block.file) continue
    expect(block.info, block.text).toBe('sh')
    for (const line of block.text.split('\n').filter((l) => l.trim() && !l.trim().startsWith('#'))) expect(line).toMatch(/^svc /)
  }
})

chromiumNotice()

describeWithChromium('docs/apps.md tutorials, pasted as written, run in Chromium', {timeout: 240_000}, () => {
  const data = tempDir()
  const work = tempDir()
  let server: ServeProcess | undefined
  let env: Record<string, string> = {}
  let chrome: Awaited<ReturnType<typeof launchChromium>>

  beforeAll(async () => {
    const ada = await svc(['admin', 'user', 'add', 'ada', '--role', 'admin', '--data', data, '--json'])
    server = await svcServe(data, [], {timeoutMs: 120_000})
    env = {SVC_URL: server.url, SVC_TOKEN: ada.json.token}
    chrome = await launchChromium()
  }, 300_000)
  afterAll(async () => {
    await chrome?.close()
    await server?.stop()
  })

  it('every file is written, every svc line exits 0, and every app runs and changes', async () => {
    const apps: string[] = []
    for (const block of blocks) {
      if (block.file) {
        mkdirSync(join(work, dirname(block.file)), {recursive: true})
        writeFileSync(join(work, block.file), block.text)
        if (block.file.endsWith('/app.json')) apps.push(dirname(block.file))
        continue
      }
      for (const line of block.text.split('\n').filter((l) => l.trim() && !l.trim().startsWith('#'))) {
        const r = await svc(line.trim().split(/\s+/).slice(1), {cwd: work, env})
        expect(r.code, `${line}\n${r.stdout}${r.stderr}`).toBe(0)
      }
    }
    expect(apps.length).toBeGreaterThan(0)

    for (const code of apps) {
      const page = await chrome.context.newPage()
      const errors: string[] = []
      page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`))
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(`console: ${m.text()}`)
      })
      page.on('response', (r) => {
        if (r.status() >= 400) errors.push(`${r.status()} ${r.url()}`)
      })
      await page.goto(`${server!.url}/a/${code}`)
      await page.waitForLoadState('load')
      await page.locator('#svc-app, canvas').first().waitFor({state: 'attached', timeout: 60_000})
      const shot = async () => (await page.screenshot()).toString('base64')
      const before = await shot()
      const button = page.getByRole('button').first()
      if (await button.count()) await button.click()
      else await page.mouse.click(200, 200)
      await expect.poll(shot, {timeout: 60_000, message: `${code} never changed`}).not.toBe(before)
      expect(errors, code).toEqual([])
      await page.close()
    }
  })
})
