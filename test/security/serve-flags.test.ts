// `svc serve --apps-url`: a bad template or a missing --public-url stops the server before it listens (exit 2).
import {expect, it} from 'vitest'
import {svc} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'

it('svc serve refuses an unusable --apps-url, and --apps-url without --public-url', async () => {
  const data = tempDir()
  const bad = await svc(['serve', '--port', '0', '--data', data, '--apps-url', 'https://apps.example.com'])
  expect(bad.code).toBe(2)
  expect(bad.stderr).toContain('{code}')
  const alone = await svc(['serve', '--port', '0', '--data', data, '--apps-url', 'https://{code}.apps.example.com'])
  expect(alone.code).toBe(2)
  expect(alone.stderr).toContain('--public-url')
}, 60_000)
