// The console, part 2 (issue 28), in Debian's Chromium, on SQLite and (with SVC_TEST_DATABASE_URL)
// on PostgreSQL: the prompt cascade and editor, the app editor, flows and runs, dashboards —
// keyboard, accessible names, phone width, dark mode, axe.
import type {Locator, Page} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {axeScan, chromiumNotice, codeOf, describeWithChromium, launchChromium, signInThroughForm} from '../helpers/browser.js'
import {svc, svcServe} from '../helpers/cli.js'
import {createWorld, overHttp, tempDir, type Transport, type World} from '../helpers/world.js'


let world: World
let http: Transport
let admin: string
let alice: string

async function api(method: string, path: string, body?: unknown, token = admin) {
  const res = await http.fetch(path, {method, headers: {authorization: `Bearer ${token}`, 'content-type': 'application/json'}, body: body === undefined ? undefined : JSON.stringify(body)})
  const text = await res.text()
  return {status: res.status, json: text ? JSON.parse(text) : undefined}
}

beforeAll(async () => {
  world = await createWorld({
    accounts: ['acme', 'other'],
    users: [
      {login: 'admin', role: 'admin', name: 'Ada Admin', teams: ['sales'], department: 'ops'},
      {login: 'alice', role: 'user', name: 'Alice'},
      {login: 'gus', role: 'guest'},
      {login: 'mallory', account: 'other', role: 'admin'},
    ],
  })
  http = await overHttp(world.app)
  admin = world.users.admin!.token
  alice = world.users.alice!.token
}, 180_000)

afterAll(async () => {
  await http?.close()
  await world?.close()
})

/** expect.poll with room for a loaded machine (a compile, a debounce, a poll interval): never a speed assertion. */
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, {timeout: 120_000, interval: 100})

/** Where the browser opens the console. */
const site = () => http.origin

/** Signs in through the login form, then opens `hash` (a shared link). */
async function signedIn(page: Page, hash: string, token = admin) {
  await signInThroughForm(page, site(), token)
  await page.goto(`${site()}/${hash}`)
}

/** The 1-based line the caret is on in a code editor (CodeMirror marks it `.cm-activeLine`). */
const caretLine = (editor: Locator) => editor.evaluate((el) => [...el.querySelectorAll('.cm-line')].findIndex((l) => l.classList.contains('cm-activeLine')) + 1)

/** The tile keys of a dashboard grid or layout editor (`sel`), in their order on the page. */
const order = (page: Page, sel: string) => page.locator(`${sel} [data-key]`).evaluateAll((els) => els.map((e) => e.getAttribute('data-key')))
/** The tile keys of Alice's dashboard `id` as the server holds it. */
const storedLayout = async (id: number) => (await api('GET', `/toolkit/dashboards/${id}.json`, undefined, alice)).json.layout.map((i: {key: string}) => i.key)
const layers = (page: Page) => page.locator('[data-testid=layers] li[data-layer]').evaluateAll((items) =>
  items.map((li) => `${li.getAttribute('data-layer')}${li.getAttribute('data-wins') === 'true' ? '*' : ''}`))

describe('prompt studio API', () => {
  it('explains the cascade for a user, and only admins may pick another user', async () => {
    const team = world.users.admin!.teamIds[0]!
    for (const prompt of [
      {name: 'Account brief', code: 'brief', content: 'account'},
      {name: 'Team brief', code: 'brief', content: 'team', scope: 'team', scope_id: team},
      {name: 'Extra', code: 'brief_extra', content: 'more'},
    ]) expect((await api('POST', '/svc/prompts.json', {prompt})).status).toBe(201)
    const mine = await api('GET', '/svc/prompts/explain.json?code=brief')
    expect(mine.status).toBe(200)
    expect(mine.json.winner).toBe('team')
    expect(mine.json.layers.map((l: {layer: string; wins: boolean}) => `${l.layer}${l.wins ? '*' : ''}`)).toEqual(['team*', 'account'])
    expect(mine.json.extra).toMatchObject({code: 'brief_extra', layer: 'account'})
    // Alice is in no team: the account layer wins for her.
    const hers = await api('GET', '/svc/prompts/explain.json?code=brief&user=alice')
    expect(hers.json.winner).toBe('account')
    expect(hers.json.user.login).toBe('alice')
    // Alice may not look at the admin's cascade; nobody sees another account's users.
    expect((await api('GET', '/svc/prompts/explain.json?code=brief&user=admin', undefined, alice)).status).toBe(403)
    expect((await api('GET', '/svc/prompts/explain.json?code=brief&user=mallory')).status).toBe(404)
    expect((await api('GET', `/svc/prompts/explain.json?code=brief&user=${world.users.mallory!.id}`)).status).toBe(404)
    // The scopes a guest may not write are said up front.
    const guest = await api('GET', '/svc/prompts/explain.json?code=brief', undefined, world.users.gus!.token)
    expect(guest.json.writable.every((w: {allowed: boolean}) => !w.allowed)).toBe(true)
    expect((await api('GET', '/svc/prompts/explain.json?code=bad.code')).status).toBe(400)
  })

  it('previews unsaved content: a parse error at its line and column, the variables, the render with _extra', async () => {
    const broken = await api('POST', '/svc/prompts/preview.json', {content: 'Hi\n  {% if who %}x', code: 'brief'})
    expect(broken.status).toBe(200)
    expect(broken.json.text).toBeNull()
    expect(broken.json.problem).toMatchObject({line: 2, column: 3})
    const ok = await api('POST', '/svc/prompts/preview.json', {content: 'Hi {{ who }} {{ date }} {{ TOKEN }}', code: 'brief', date: '2026-02-03', variables: {}})
    expect(ok.json.variables).toEqual(['who'])
    expect(ok.json.missing).toEqual(['who'])
    expect(ok.json.text).toBe('Hi  2026-02-03 <API_TOKEN>\n\n## Additional instructions\n\nmore\n')
    const given = await api('POST', '/svc/prompts/preview.json', {content: 'Hi {{ who }}', variables: {who: 'Ada'}})
    expect(given.json).toMatchObject({text: 'Hi Ada', missing: [], extra: null})
    expect((await api('POST', '/svc/prompts/preview.json', {content: 'x', date: 'soon'})).status).toBe(400)
    expect((await api('POST', '/svc/prompts/preview.json', {content: 'x', user: 'alice'}, alice)).status).toBe(200)
    expect((await api('POST', '/svc/prompts/preview.json', {content: 'x', user: 'admin'}, alice)).status).toBe(403)
    expect((await api('POST', '/svc/prompts/preview.json', {content: 42})).status).toBe(422)
    // A render-time failure is a problem, not a 5xx.
    const loop = await api('POST', '/svc/prompts/preview.json', {content: '{% for i in (1..10000000) %}{{ i }}{% endfor %}'})
    expect(loop.status).toBe(200)
    expect(loop.json.problem.message).toContain('loop limit')
  })
})

chromiumNotice()

describeWithChromium('console studio in Chromium', () => {
  it('shows the cascade of a code in three layers and the winner changing when one is deleted; fixes a Liquid error and sees the preview', async () => {
    const team = world.users.admin!.teamIds[0]!
    for (const prompt of [
      {name: 'Account hello', code: 'hello', content: 'Hello from the account'},
      {name: 'Team hello', code: 'hello', content: 'Hello {{ who }} from the team', scope: 'team', scope_id: team},
      {name: 'My hello', code: 'hello', content: 'Hello from me', scope: 'user'},
    ]) expect((await api('POST', '/svc/prompts.json', {prompt})).status).toBe(201)
    const browser = await launchChromium()
    try {
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      await signedIn(page, '#/prompts?scope=team')
      // The list by scope, with a link to the cascade.
      await page.getByRole('link', {name: 'hello', exact: true}).click()
      await page.waitForURL(/#\/prompts\/hello$/)
      await poll(() => layers(page)).toEqual(['user*', 'team', 'account'])
      expect(await page.getByTestId('cascade-render').textContent()).toBe('Hello from me')
      // Another user's cascade (admins may pick anyone): Alice is in no team.
      await page.getByLabel('For user (login or id)').fill('alice')
      await page.getByLabel('For user (login or id)').press('Enter')
      await page.waitForURL(/user=alice/)
      await poll(() => layers(page)).toEqual(['account*'])
      await page.goBack()
      await poll(() => layers(page)).toEqual(['user*', 'team', 'account'])

      // Delete the user layer from its editor: the team layer wins.
      await page.getByRole('link', {name: 'My hello'}).click()
      await page.waitForURL(/#\/prompts\/hello\/[0-9a-f-]{36}$/)
      await page.getByTestId('delete').click()
      await page.getByRole('dialog', {name: 'Delete My hello?'}).getByRole('button', {name: 'Delete'}).click()
      await page.waitForURL(/#\/prompts\/hello$/)
      await poll(() => layers(page)).toEqual(['team*', 'account'])
      expect(await page.getByTestId('winner').textContent()).toBe('team')

      // The team prompt in the editor: its variable has an input, the preview follows it.
      await page.getByRole('link', {name: 'Team hello'}).click()
      await page.waitForURL(/#\/prompts\/hello\/[0-9a-f-]{36}$/)
      await poll(() => page.getByTestId('preview').textContent()).toBe('Hello  from the team')
      await poll(() => page.getByTestId('missing').textContent()).toContain('who')
      await page.getByRole('textbox', {name: 'who', exact: true}).fill('Ada')
      await poll(() => page.getByTestId('preview').textContent()).toBe('Hello Ada from the team')
      await poll(() => page.getByTestId('missing').count()).toBe(0)
      // A syntax error, typed: underlined at its line and column, said in words.
      const content = page.getByRole('textbox', {name: 'Content (Liquid)'})
      await content.fill('Hello {{ who }}\n{% if who %}from the team')
      await poll(() => page.getByTestId('content-problem').getAttribute('data-line')).toBe('2')
      expect(await page.getByTestId('content-problem').getAttribute('data-column')).toBe('1')
      expect(await content.getAttribute('aria-invalid')).toBe('true')
      // In the code editor: a lint diagnostic from the place to the end of its line.
      await poll(() => page.locator('[data-testid=content] .cm-lintRange-error').first().textContent()).toContain('{% if who %}')
      // Fixed: the preview shows the new render.
      await content.press('End')
      await content.press('Control+End')
      await content.pressSequentially('{% endif %}!')
      await poll(() => page.getByTestId('preview').textContent()).toBe('Hello Ada\nfrom the team!')
      await poll(() => page.getByTestId('content-problem').count()).toBe(0)
      await page.keyboard.press('Control+s')
      await poll(() => page.getByTestId('status').textContent()).toContain('Saved')
      const rendered = await http.fetch('/svc/prompt/hello.md?who=Bo', {headers: {authorization: `Bearer ${admin}`}})
      expect(await rendered.text()).toBe('Hello Bo\nfrom the team!')
    } finally {
      await browser.close()
    }
  }, 300_000)

  it('opens an app, saves a compile error (shown at its line and column, build kept), fixes it; the preview frame reloads on the new build, which the app serves', async () => {
    // A real `svc serve` (as console.test.ts). The preview frame loads /a/ID, which lands on the app's own origin.
    const data = tempDir()
    const owner = (await svc(['admin', 'user', 'add', 'owner', '--role', 'admin', '--data', data, '--json'])).json
    const server = await svcServe(data, ['--quiet'])
    const call = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(server.url + path, {method, headers: {authorization: `Bearer ${owner.token}`, 'content-type': 'application/json'}, body: body === undefined ? undefined : JSON.stringify(body)})
      return {status: res.status, json: await res.json()}
    }
    const created = await call('POST', '/svc/apps.json', {app: {name: 'Counter', url_code: 'counter', app_engine: 'svelte', css_engine: 'none',
      source_code: '<script>\n  let n = $state(1)\n</script>\n\n<p>Build one: {n}</p>\n',
      actions: [{action: 'greet', flow_code: 'greeter', description: 'Say hello'}]}})
    expect(created.status).toBe(201)
    const id = created.json.id
    const browser = await launchChromium()
    try {
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      await page.goto(`${server.url}/`)
      await page.fill('#token', owner.token)
      await page.click('button[type=submit]')
      await page.waitForSelector('[data-testid=who]', {state: 'attached'})
      await page.goto(`${server.url}/#/apps`)
      await page.locator(`[data-app-edit="${id}"]`).click()
      await page.waitForURL(new RegExp(`#/apps/${id}$`))
      await poll(() => page.frames().some((f) => new URL(f.url()).hostname === 'counter.localhost')).toBe(true)
      // The app's action, never run yet; the URL with a copy button.
      expect(await page.getByTestId('actions').textContent()).toContain('never run')
      expect(await page.getByTestId('app-url').textContent()).toBe(`${server.url}/a/counter`)
      const before = await page.getByTestId('preview').getAttribute('data-build')

      const source = page.getByRole('textbox', {name: 'Source'})
      await source.fill('<script>\n  let n = $state(2)\n</script>\n\n<p>Build two: {n</p>\n')
      await page.getByTestId('save').click()
      await poll(() => page.getByTestId('source-problem').getAttribute('data-line')).toBe('5')
      const column = Number(await page.getByTestId('source-problem').getAttribute('data-column'))
      expect(column).toBeGreaterThan(0)
      // Its place said once ("Line 5, column C"), the message after it, the code frame kept as lines.
      const said = (await page.getByTestId('source-problem').locator('p').textContent())!
      expect(said.match(/line 5/gi)).toHaveLength(1)
      expect(said).toMatch(new RegExp(`^Line 5, column ${column}: \\S`))
      const frame = (await page.getByTestId('source-frame').textContent())!
      expect(frame.split('\n').length).toBeGreaterThanOrEqual(3)
      expect(frame).toMatch(/^> 5 \| <p>Build two: \{n<\/p>$/m)
      expect(await page.getByTestId('source-frame').evaluate((el) => el.tagName)).toBe('PRE')
      // In the code editor: a lint diagnostic at that line.
      await poll(() => page.locator('[data-testid=source] .cm-lintRange-error').count()).toBeGreaterThan(0)
      expect(await page.locator('[data-testid=source] .cm-lintRange-error').first().evaluate((el) => el.closest('.cm-line')?.textContent)).toBe('<p>Build two: {n</p>')
      expect(await page.getByTestId('app-error').textContent()).toContain('build in use is unchanged')
      expect(await page.getByTestId('preview').getAttribute('data-build')).toBe(before)
      expect((await call('GET', `/svc/apps/${id}.json`)).json.source_code).toContain('Build one')
      // "Line 5, column C" puts the caret there.
      await page.getByTestId('source-problem').getByRole('button').click()
      await poll(() => caretLine(source)).toBe(5)

      await source.fill('<script>\n  let n = $state(2)\n</script>\n\n<p>Build two: {n}</p>\n')
      await page.keyboard.press('Control+s')
      await poll(() => page.getByTestId('status').textContent()).toMatch(/^Built in \d+ ms\.$/)
      await poll(() => page.getByTestId('source-problem').count()).toBe(0)
      // The frame is a new one, for the new build, on the app's origin; the app serves that build.
      await poll(() => page.getByTestId('preview').getAttribute('data-build')).not.toBe(before)
      await poll(() => page.frames().some((f) => new URL(f.url()).hostname === 'counter.localhost')).toBe(true)
      const [appTab] = await Promise.all([page.context().waitForEvent('page'), page.getByTestId('app-url').click()])
      await appTab.getByText('Build two: 2').waitFor()
      expect(new URL(appTab.url()).hostname).toBe('counter.localhost')
    } finally {
      await browser.close()
      await server.stop()
    }
  }, 300_000)

  it('a prompt changed through the CLI while it is open: saving shows the 412 view (theirs beside mine), "keep mine" saves over it', async () => {
    const prompt = (await api('POST', '/svc/prompts.json', {prompt: {name: 'Race hello', code: 'race_hello', content: 'Hello one'}})).json
    const browser = await launchChromium({bypassCSP: true})
    try {
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      await signedIn(page, `#/prompts/race_hello/${prompt.id}`)
      await poll(() => page.getByTestId('preview').textContent()).toBe('Hello one')
      await page.getByRole('textbox', {name: 'Content (Liquid)'}).fill('Hello mine')
      // Meanwhile, someone changes it with the CLI.
      const cli = await svc(['prompt', 'update', prompt.id, '--content', 'Hello theirs', '--name', 'Their hello', '--url', site(), '--token', admin])
      expect(cli.code, cli.stderr).toBe(0)
      await page.getByTestId('save').click()
      const view = page.getByRole('region', {name: 'Changed by someone else'})
      await view.waitFor()
      expect(await page.getByTestId('editor-error').textContent()).toContain('Nothing was saved')
      const row = (field: string) => view.locator(`tr[data-field=${field}] td`).allTextContents()
      expect(await row('content')).toEqual(['Hello one', 'Hello theirs', 'Hello mine'])
      expect(await row('name')).toEqual(['Race hello', 'Their hello', 'Race hello'])
      expect((await api('GET', `/svc/prompts/${prompt.id}.json`)).json.content).toBe('Hello theirs')
      expect(await axeScan(page, 'prompt editor 412 view')).toEqual([])
      // Keep mine: my content is saved over theirs; the name I did not touch takes theirs.
      await view.getByRole('button', {name: 'Keep my edits (save them over theirs)'}).click()
      await poll(() => page.getByTestId('status').textContent()).toContain('Saved')
      await poll(() => view.count()).toBe(0)
      expect((await api('GET', `/svc/prompts/${prompt.id}.json`)).json).toMatchObject({content: 'Hello mine', name: 'Their hello'})
      // The editor now holds the saved version's tag: the next save applies.
      await page.getByRole('textbox', {name: 'Content (Liquid)'}).fill('Hello again')
      await page.keyboard.press('Control+s')
      await poll(async () => (await api('GET', `/svc/prompts/${prompt.id}.json`)).json.content).toBe('Hello again')
    } finally {
      await browser.close()
    }
  }, 300_000)

  it('an app changed while it is open: saving shows the 412 view and nothing is saved; "take theirs" reloads the form with their version', async () => {
    const app = (await api('POST', '/svc/apps.json', {app: {name: 'Race app', app_engine: 'js', css_engine: 'none', source_code: "document.title = 'one'\n"}})).json
    const browser = await launchChromium({bypassCSP: true})
    try {
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      await signedIn(page, `#/apps/${app.id}`)
      const source = page.getByRole('textbox', {name: 'Source'})
      await poll(() => codeOf(source)).toBe("document.title = 'one'\n")
      await source.fill("document.title = 'mine'\n")
      expect((await api('PATCH', `/svc/apps/${app.id}.json`, {app: {name: 'Their app', source_code: "document.title = 'theirs'\n"}})).status).toBe(200)
      await page.getByTestId('save').click()
      const view = page.getByRole('region', {name: 'Changed by someone else'})
      await view.waitFor()
      expect(await view.locator('tr[data-field=source_code] td').allTextContents()).toEqual(["document.title = 'one'\n", "document.title = 'theirs'\n", "document.title = 'mine'\n"])
      expect(await view.locator('tr[data-field=name] td').allTextContents()).toEqual(['Race app', 'Their app', 'Race app'])
      expect((await api('GET', `/svc/apps/${app.id}.json`)).json.source_code).toBe("document.title = 'theirs'\n")
      expect(await axeScan(page, 'app editor 412 view')).toEqual([])
      await view.getByRole('button', {name: 'Use their version (drop my edits)'}).click()
      await poll(() => view.count()).toBe(0)
      await poll(() => codeOf(source)).toBe("document.title = 'theirs'\n")
      expect(await page.getByRole('textbox', {name: 'Name'}).inputValue()).toBe('Their app')
      // Their version's tag: a save now applies.
      await page.getByRole('textbox', {name: 'Name'}).fill('Our app')
      await page.getByTestId('save').click()
      await poll(() => page.getByTestId('status').textContent()).toBe('Saved.')
      expect((await api('GET', `/svc/apps/${app.id}.json`)).json).toMatchObject({name: 'Our app', source_code: "document.title = 'theirs'\n"})
    } finally {
      await browser.close()
    }
  }, 300_000)

  it('runs a flow by hand with JSON input and opens its run; new runs appear in the list without a reload', async () => {
    const flow = await api('POST', '/svc/resources.json', {resource: {kind: 'svc/custom_flow', code: 'greeter', name: 'Greeter',
      fields: {program: [{type: 'mutation', set: {greeting: 'Hello {name}'}}]}}})
    expect(flow.status).toBe(201)
    const browser = await launchChromium()
    try {
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      await signedIn(page, '#/flows')
      await page.getByTestId('runs').waitFor()
      const runsBefore = await page.locator('[data-testid=runs] tr[data-run]').count()
      // A run started elsewhere (the API) shows up without a reload.
      expect((await api('POST', `/svc/resources/${flow.json.id}/run.json`, {input: {name: 'Api'}})).status).toBe(201)
      await poll(() => page.locator('[data-testid=runs] tr[data-run]').count()).toBe(runsBefore + 1)

      await page.locator('[data-flows-tab=flows]').click()
      await page.getByRole('link', {name: 'Greeter', exact: true}).click()
      await page.waitForURL(new RegExp(`#/flows/${flow.json.id}$`))
      const input = page.getByLabel('Input (a JSON object)')
      await input.fill('{"name": ')
      await page.getByTestId('run').click()
      expect(await page.locator('#run-input-error').textContent()).toContain('not valid JSON')
      await input.fill('{"name": "Ada"}')
      await page.getByTestId('run').click()
      await page.waitForURL(/#\/flows\/runs\/[0-9a-f-]{36}$/)
      await poll(() => page.getByTestId('run-status').textContent()).toBe('finished')
      expect(JSON.parse((await page.getByTestId('run-input').textContent())!)).toEqual({name: 'Ada'})
      expect(JSON.parse((await page.getByTestId('run-output').textContent())!)).toMatchObject({greeting: 'Hello Ada'})
      expect(await page.getByTestId('steps').textContent()).toContain('set greeting')
      // The trace: each step that ran, closed until opened, with its resolved input.
      const ran = page.locator('[data-testid=trace] li[data-step]')
      expect(await ran.count()).toBe(1)
      const summary = ran.first().locator('summary')
      expect(await summary.getAttribute('aria-label')).toMatch(/^Step 1: set greeting, \d+ ms$/)
      expect(await ran.first().locator('details').getAttribute('open')).toBeNull()
      await summary.click()
      await ran.first().locator('dt', {hasText: 'Input'}).waitFor()
      expect(JSON.parse((await ran.first().locator('dd pre').first().textContent())!)).toEqual({greeting: 'Hello Ada'})
      // Filter the list by status, kept in the URL.
      await page.goto(`${site()}/#/flows?status=error`)
      await poll(() => page.locator('[data-testid=runs] tr[data-run]').count()).toBe(0)
      await page.getByTestId('status').selectOption('finished')
      await page.waitForURL(/status=finished/)
      await poll(() => page.locator('[data-testid=runs] tr[data-run]').count()).toBe(runsBefore + 2)
      // A failed run: the failing step (nested in an if) is marked, open, with its error; the steps before it are not.
      const failing = await api('POST', '/svc/resources.json', {resource: {kind: 'svc/custom_flow', code: 'failing_greeter', fields: {program: [
        {type: 'mutation', set: {n: 1}},
        {type: 'if', condition: '{n} > 0', then: [{type: 'connector', connector: 'nowhere', method: 'hello', params: {who: 'n={n}'}}]},
      ]}}})
      expect(failing.status).toBe(201)
      const failed = await api('POST', `/svc/resources/${failing.json.id}/run.json`, {input: {}})
      await page.goto(`${site()}/#/flows/runs/${failed.json.id}`)
      await poll(() => page.getByTestId('run-status').textContent()).toBe('error')
      await page.getByTestId('trace').waitFor()
      expect(await ran.evaluateAll((items) => items.map((li) => `${li.getAttribute('data-step')}${li.classList.contains('failed') ? '!' : ''}`)))
        .toEqual(['1', '2', '2.then.1!'])
      const bad = page.locator('[data-testid=trace] li[data-step="2.then.1"]')
      expect(await bad.locator('details').getAttribute('open')).not.toBeNull()
      expect(await bad.locator('summary').getAttribute('aria-label')).toMatch(/^Step 2\.then\.1: nowhere\.hello, \d+ ms, failed$/)
      expect(await bad.locator('pre.error').textContent()).toBe('connector "nowhere" not found')
      expect(JSON.parse((await bad.locator('dd pre').first().textContent())!)).toEqual({connector: 'nowhere', method: 'hello', params: {who: 'n=1'}})
    } finally {
      await browser.close()
    }
  }, 300_000)

  it('reorders a dashboard by keyboard and by drag, adds a tile (the ones not offered say why), saves; after a reload the order stays', async () => {
    const board = await api('POST', '/toolkit/dashboards.json', {dashboard: {name: 'Alice board', context: 'main',
      layout: [{key: 'activity', size: 'half'}, {key: 'chats', size: 'half'}, {key: 'ai_request', size: 'quarter'}]}}, alice)
    expect(board.status).toBe(201)
    const browser = await launchChromium()
    try {
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      await signedIn(page, '#/dashboards', alice)
      await poll(() => order(page, '[data-testid=grid]')).toEqual(['activity', 'chats', 'ai_request'])
      await page.getByTestId('edit-layout').click()
      await page.waitForURL(/#\/dashboards\/edit$/)
      const editor = '[data-testid=layout-editor]'
      await poll(() => order(page, editor)).toEqual(['activity', 'chats', 'ai_request'])
      // Keyboard: the tile's "earlier" button, then Alt+ArrowDown on a tile.
      await page.getByRole('button', {name: 'Move Chats earlier'}).click()
      await poll(() => order(page, editor)).toEqual(['chats', 'activity', 'ai_request'])
      expect(await page.getByTestId('layout-status').textContent()).toBe('Chats moved to place 1 of 3.')
      await page.locator(`${editor} [data-key=activity]`).focus()
      await page.keyboard.press('Alt+ArrowDown')
      await poll(() => order(page, editor)).toEqual(['chats', 'ai_request', 'activity'])
      // Drag: the AI request tile onto the first place.
      await page.locator(`${editor} [data-key=ai_request]`).dragTo(page.locator(`${editor} [data-key=chats]`), {sourcePosition: {x: 8, y: 8}, targetPosition: {x: 8, y: 8}})
      await poll(() => order(page, editor)).toEqual(['ai_request', 'chats', 'activity'])
      // Tiles not offered, and why; add one that is, and resize it.
      await page.getByTestId('not-offered').locator('summary').click()
      const reasons = await page.getByTestId('not-offered').textContent()
      expect(reasons).toContain('TODO: needs the todo permission')
      expect(reasons).toContain('Mail: the mail module is not enabled on the account')
      expect(await page.getByTestId('add-tile').locator('option', {hasText: 'TODO'}).count()).toBe(0)
      await page.getByTestId('add-tile').selectOption({label: 'Activity'})
      await page.getByRole('button', {name: 'Add', exact: true}).click()
      await poll(() => order(page, editor)).toEqual(['ai_request', 'chats', 'activity', 'activity'])
      await page.getByLabel('Size of Chats').selectOption('full')
      await page.getByTestId('save-layout').click()
      await page.waitForURL(/#\/dashboards$/)
      // The grid shows the server's answer, and it stays after a reload.
      await poll(() => order(page, '[data-testid=grid]')).toEqual(['ai_request', 'chats', 'activity', 'activity'])
      await page.reload()
      await poll(() => order(page, '[data-testid=grid]')).toEqual(['ai_request', 'chats', 'activity', 'activity'])
      expect(await page.getAttribute('[data-testid=grid] [data-key=chats]', 'data-size')).toBe('full')
      const stored = await api('GET', `/toolkit/dashboards/${board.json.id}.json`, undefined, alice)
      expect(stored.json.layout.map((i: {key: string}) => i.key)).toEqual(['ai_request', 'chats', 'activity', 'activity'])
    } finally {
      await browser.close()
    }
  }, 300_000)

  it('a dashboard changed through the CLI while it is in the layout editor: saving shows the 412 view (their tiles beside mine), nothing is saved; "keep mine" saves over it', async () => {
    const board = (await api('POST', '/toolkit/dashboards.json', {dashboard: {name: 'Race board', context: 'crm',
      layout: [{key: 'activity', size: 'half'}, {key: 'chats', size: 'half'}]}}, alice)).json
    const stored = () => storedLayout(board.id)
    const browser = await launchChromium({bypassCSP: true})
    try {
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      await signedIn(page, '#/dashboards/edit?context=crm', alice)
      const editor = '[data-testid=layout-editor]'
      await page.getByRole('heading', {name: 'Arrange “Race board” (crm)'}).waitFor()
      await poll(() => order(page, editor)).toEqual(['activity', 'chats'])
      // Meanwhile, Alice in another session adds a tile and resizes one with the CLI.
      const cli = await svc(['dashboard', 'update', String(board.id), '--layout-file', '-', '--url', site(), '--token', alice],
        {input: JSON.stringify([{key: 'ai_request', size: 'quarter'}, {key: 'activity', size: 'full'}, {key: 'chats', size: 'half'}])})
      expect(cli.code, cli.stderr).toBe(0)
      await page.getByRole('button', {name: 'Move Chats earlier'}).click()
      await poll(() => order(page, editor)).toEqual(['chats', 'activity'])
      await page.getByTestId('save-layout').click()
      const view = page.getByRole('region', {name: 'Changed by someone else'})
      await view.waitFor()
      expect(await page.getByTestId('layout-error').textContent()).toContain('Nothing was saved')
      expect(await view.locator('tr[data-field=tiles] td').allTextContents()).toEqual([
        '1. Activity (half)\n2. Chats (half)',
        '1. AI request (quarter)\n2. Activity (full)\n3. Chats (half)',
        '1. Chats (half)\n2. Activity (half)',
      ])
      expect(page.url()).toMatch(/#\/dashboards\/edit\?context=crm$/)
      expect(await stored()).toEqual(['ai_request', 'activity', 'chats'])
      expect(await axeScan(page, 'layout editor 412 view')).toEqual([])
      // Keep mine: my order is saved over theirs (their tile is gone: the whole layout is mine).
      await view.getByRole('button', {name: 'Keep my edits (save them over theirs)'}).click()
      await page.waitForURL(/#\/dashboards\?context=crm$/)
      await poll(() => order(page, '[data-testid=grid]')).toEqual(['chats', 'activity'])
      expect(await stored()).toEqual(['chats', 'activity'])
    } finally {
      await browser.close()
    }
  }, 300_000)

  it('a dashboard changed through the API while it is in the layout editor: saving shows the 412 view and nothing is saved; "take theirs" reloads the editor with their version', async () => {
    const board = (await api('POST', '/toolkit/dashboards.json', {dashboard: {name: 'Race board 2', context: 'cms',
      layout: [{key: 'activity', size: 'half'}, {key: 'chats', size: 'half'}, {key: 'ai_request', size: 'quarter'}]}}, alice)).json
    const stored = () => storedLayout(board.id)
    const browser = await launchChromium({bypassCSP: true})
    try {
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      await signedIn(page, '#/dashboards/edit?context=cms', alice)
      const editor = '[data-testid=layout-editor]'
      await page.getByRole('heading', {name: 'Arrange “Race board 2” (cms)'}).waitFor()
      await poll(() => order(page, editor)).toEqual(['activity', 'chats', 'ai_request'])
      await page.locator(`${editor} [data-key=activity]`).focus()
      await page.keyboard.press('Alt+ArrowDown')
      await poll(() => order(page, editor)).toEqual(['chats', 'activity', 'ai_request'])
      expect((await api('PATCH', `/toolkit/dashboards/${board.id}.json`, {dashboard: {name: 'Their board',
        layout: [{key: 'ai_request', size: 'full'}, {key: 'activity', size: 'half'}]}}, alice)).status).toBe(200)
      await page.getByTestId('save-layout').click()
      const view = page.getByRole('region', {name: 'Changed by someone else'})
      await view.waitFor()
      expect(await view.locator('tr[data-field=tiles] td').allTextContents()).toEqual([
        '1. Activity (half)\n2. Chats (half)\n3. AI request (quarter)',
        '1. AI request (full)\n2. Activity (half)',
        '1. Chats (half)\n2. Activity (half)\n3. AI request (quarter)',
      ])
      expect(await view.locator('tr[data-field=name] td').allTextContents()).toEqual(['Race board 2', 'Their board', 'Race board 2'])
      expect(await stored()).toEqual(['ai_request', 'activity'])
      expect(await axeScan(page, 'layout editor 412 view, renamed')).toEqual([])
      await view.getByRole('button', {name: 'Use their version (drop my edits)'}).click()
      await poll(() => view.count()).toBe(0)
      await poll(() => order(page, editor)).toEqual(['ai_request', 'activity'])
      expect(await page.getAttribute(`${editor} [data-key=ai_request]`, 'data-size')).toBe('full')
      await page.getByRole('heading', {name: 'Arrange “Their board” (cms)'}).waitFor()
      expect(await stored()).toEqual(['ai_request', 'activity'])
      // Their version's tag: a save now applies.
      await page.getByRole('button', {name: 'Move Activity earlier'}).click()
      await page.getByTestId('save-layout').click()
      await page.waitForURL(/#\/dashboards\?context=cms$/)
      await poll(() => order(page, '[data-testid=grid]')).toEqual(['activity', 'ai_request'])
      expect(await stored()).toEqual(['activity', 'ai_request'])
    } finally {
      await browser.close()
    }
  }, 300_000)

  it('the start page of an empty workspace is an overview: counts at zero, the next steps, the dashboards; no request of the page fails', async () => {
    const browser = await launchChromium()
    try {
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      const failed: string[] = []
      page.on('response', (r) => { if (r.status() >= 400) failed.push(`${r.status()} ${new URL(r.url()).pathname}`) })
      // Mallory is the admin of another account, which holds nothing.
      await signedIn(page, '#/', world.users.mallory!.token)
      await poll(() => page.getByTestId('count-dbs').textContent()).toBe('0 databases')
      expect(await page.getByTestId('count-apps').textContent()).toBe('0 apps')
      expect(await page.locator('[data-tab=overview]').getAttribute('aria-current')).toBe('page')
      const steps = page.getByRole('region', {name: 'Next steps'})
      expect(await steps.locator('li[data-step]').evaluateAll((items) => items.map((li) => li.getAttribute('data-step')))).toEqual(['db', 'prompt', 'app', 'flow', 'folder'])
      await steps.getByRole('link', {name: 'New database'}).click()
      await page.waitForURL(/#\/new\/db$/)
      await page.goBack()
      await page.getByRole('region', {name: 'Dashboards'}).waitFor()
      // The journal's recent changes (GET /svc/history.json): in an account that holds nothing, only the
      // seeded users' API tokens (events an admin reads), no resource.
      const changes = page.getByTestId('recent-changes')
      await changes.waitFor()
      const items = changes.locator('ol.changes li')
      await poll(() => items.count()).toBeGreaterThan(0)
      for (const text of await items.allTextContents()) expect(text).toMatch(/ (token|user) /)
      expect(await page.locator('main .error').count()).toBe(0)
      expect(failed).toEqual([])
    } finally {
      await browser.close()
    }
  }, 300_000)

  it('the app editor sets the app\'s database, and warns while an app that calls a db has none', async () => {
    const app = (await api('POST', '/svc/apps.json', {app: {name: 'Guestbook', app_engine: 'js', css_engine: 'none',
      source_code: "fetch('/svc/db/guests/list').then((r) => r.json()).then(console.log)\n"}})).json
    const browser = await launchChromium()
    try {
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      await signedIn(page, `#/apps/${app.id}`)
      const warning = page.getByTestId('needs-db')
      await warning.waitFor()
      expect(await warning.textContent()).toContain('{"error":"database not found"}')
      const db = page.getByRole('combobox', {name: 'Database (code)'})
      expect(await db.getAttribute('aria-describedby')).toBe('app-needs-db')
      await db.fill('guests')
      await poll(() => warning.count()).toBe(0)
      await page.getByTestId('save').click()
      await poll(() => page.getByTestId('status').textContent()).toBe('Saved.')
      expect((await api('GET', `/svc/apps/${app.id}.json`)).json.db_code).toBe('guests')
      // Cleared again: stored as null, and the warning is back.
      await db.fill('')
      await warning.waitFor()
      await page.keyboard.press('Control+s')
      await poll(async () => (await api('GET', `/svc/apps/${app.id}.json`)).json.db_code).toBeNull()
    } finally {
      await browser.close()
    }
  }, 300_000)

  it('has no serious or critical axe violation on the new screens, light and dark, desktop and phone width', async () => {
    const flow = (await api('POST', '/svc/resources.json', {resource: {kind: 'svc/custom_flow', code: 'axe_flow', fields: {program: [{type: 'mutation', set: {a: '{x}'}}]}}})).json
    await api('POST', '/svc/resources.json', {resource: {kind: 'svc/custom_connector', code: 'axe_api', url: 'http://127.0.0.1:9', secret_token: 'a-long-secret',
      fields: {methods: [{name: 'get', http_method: 'GET', path: '/x'}]}}})
    const run = (await api('POST', `/svc/resources/${flow.id}/run.json`, {input: {x: 'Axe'}})).json
    const prompt = (await api('POST', '/svc/prompts.json', {prompt: {name: 'Axe hello', code: 'axe_hello', content: 'Hi {{ who }}'}})).json
    const app = (await api('POST', '/svc/apps.json', {app: {name: 'Axe app', app_engine: 'js', css_engine: 'none', source_code: "fetch('/svc/db/guests/list')\n"}})).json
    const browser = await launchChromium({bypassCSP: true})
    try {
      const page = await browser.context.newPage()
      page.setDefaultTimeout(60_000)
      await signedIn(page, '#/prompts')
      const screens: Array<[string, (p: Page) => Promise<unknown>]> = [
        ['#/', (p) => poll(() => p.getByTestId('count-apps').textContent()).not.toContain('…')],
        [`#/apps/${app.id}`, (p) => p.locator('[data-testid=source] .cm-line').first().waitFor()],
        ['#/prompts', (p) => p.locator('[data-testid=prompts] tr[data-id]').first().waitFor()],
        ['#/prompts?scope=system', (p) => p.locator('[data-testid=system-prompts] a').first().waitFor()],
        ['#/prompts/axe_hello', (p) => p.getByTestId('winner').waitFor()],
        [`#/prompts/axe_hello/${prompt.id}`, (p) => poll(() => p.getByTestId('preview').textContent()).not.toBe('Rendering…')],
        ['#/prompts/axe_hello/new?scope=user', (p) => p.getByTestId('prompt-form').waitFor()],
        ['#/apps', (p) => p.getByTestId('apps').waitFor()],
        ['#/flows', (p) => p.locator('[data-testid=runs] tr[data-run]').first().waitFor()],
        [`#/flows/runs/${run.id}`, (p) => p.getByTestId('trace').waitFor()],
        ['#/flows/list', (p) => p.getByTestId('flows').waitFor()],
        [`#/flows/${flow.id}`, (p) => p.getByTestId('run-form').waitFor()],
        ['#/flows/connectors', (p) => p.locator('[data-connector=axe_api]').waitFor()],
        ['#/flows/crons', (p) => p.getByTestId('crons').waitFor()],
        ['#/dashboards', (p) => p.getByTestId('grid').waitFor()],
        ['#/dashboards/edit', (p) => p.getByTestId('layout-editor').waitFor()],
      ]
      const found: string[] = []
      const wide: string[] = []
      for (const [scheme, width] of [['light', 1280], ['dark', 1280], ['dark', 360]] as const) {
        await page.emulateMedia({colorScheme: scheme})
        await page.setViewportSize({width, height: 800})
        for (const [hash, ready] of screens) {
          await page.goto(`${site()}/${hash}`)
          await ready(page)
          found.push(...await axeScan(page, `${scheme} ${width} ${hash}`))
          // Phone width: nothing makes the page scroll sideways.
          if (width === 360 && await page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth + 1)) wide.push(hash)
        }
      }
      // The editor showing a parse error.
      await page.goto(`${site()}/#/prompts/axe_hello/${prompt.id}`)
      await poll(() => page.getByTestId('preview').textContent()).toBe('Hi ')
      await page.getByRole('textbox', {name: 'Content (Liquid)'}).fill('{% if x %}')
      await page.getByTestId('content-problem').waitFor()
      found.push(...await axeScan(page, 'editor with a problem'))
      expect(found).toEqual([])
      expect(wide).toEqual([])
    } finally {
      await browser.close()
    }
  }, 300_000)
})

