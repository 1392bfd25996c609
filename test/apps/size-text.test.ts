// Issue 40 (low): a size compared with a cap is printed exactly — an asset 1 byte over 2 MiB read
// "2.0 MB; at most 2.0 MB".
import {expect, it} from 'vitest'
import {sizeText} from '../../src/core/quotas.js'
import {createWorld} from '../helpers/world.js'

it('sizeText: exact bytes, and the MiB from 1 MiB on', () => {
  expect(sizeText(1)).toBe('1 byte')
  expect(sizeText(1000)).toBe('1,000 bytes')
  expect(sizeText(2 * 2 ** 20)).toBe('2,097,152 bytes (2.0 MB)')
  expect(sizeText(2 * 2 ** 20 + 1)).toBe('2,097,153 bytes (2.0 MB)')
})

it('an asset one byte over the default cap (2 MiB) says both exact sizes', async () => {
  const world = await createWorld({accounts: ['acme'], users: [{login: 'admin', role: 'admin'}]})
  try {
    const request = (method: string, path: string, body: unknown) => world.app.request(`http://localhost${path}`, {method,
      headers: {authorization: `Bearer ${world.users.admin!.token}`, 'content-type': 'application/json'}, body: JSON.stringify(body)})
    const app = await (await request('POST', '/svc/apps.json', {app: {name: 'A', app_engine: 'html', css_engine: 'none', source_code: '<p>a</p>'}})).json()
    const r = await request('PUT', `/svc/apps/${app.id}/assets.json`, {asset: {path: 'big.png', data_base64: Buffer.alloc(2 * 2 ** 20 + 1).toString('base64')}})
    expect(r.status).toBe(422)
    expect(await r.json()).toEqual({data_base64: ['is 2,097,153 bytes (2.0 MB); an asset may be at most 2,097,152 bytes (2.0 MB) (app_asset_bytes)']})
  } finally {
    await world.close()
  }
})
