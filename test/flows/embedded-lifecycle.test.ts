// Issue 38: the embedded backend (every CLI command over a data dir) closed its store while a flow
// it had started still ran, so the run could not record its end ("cannot record its end") and stayed
// pending. The services now stop before the store: a run finishes or is aborted, and is recorded.
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {embeddedBackend} from '../../src/client/embedded.js'
import type {Backend} from '../../src/client/backend.js'
import {createWorld, DEFAULT_SEED, type World} from '../helpers/world.js'
import {flowCalling, startStub, weatherConnector, type Stub} from './stub.js'

async function post(backend: Backend, path: string, body: unknown) {
  const res = await backend.fetch(path, {method: 'POST', headers: {'content-type': 'application/json'}, body: JSON.stringify(body)})
  return {status: res.status, json: await res.json()}
}

describe('a flow started by an embedded command outlives the command only until the backend closes', () => {
  let world: World
  let stub: Stub

  beforeAll(async () => {
    world = await createWorld(DEFAULT_SEED)
    stub = await startStub()
    const backend = await embeddedBackend({dataDir: world.dataDir, databaseUrl: world.databaseUrl, as: 'admin'})
    try {
      expect((await post(backend, '/svc/resources.json', {resource: weatherConnector(stub.url)})).status).toBe(201)
    } finally {
      await backend.close()
    }
  })
  afterAll(async () => {
    await stub?.close()
    await world?.close()
  })

  /** Starts flow `code` (calling the stub's held `/slow`) through a new embedded backend: the run answers pending. */
  async function startPending(code: string) {
    const backend = await embeddedBackend({dataDir: world.dataDir, databaseUrl: world.databaseUrl, as: 'admin'})
    const flow = await post(backend, '/svc/resources.json', {resource: flowCalling(code, 'slow')})
    expect(flow.status).toBe(201)
    const before = stub.requests.length
    const run = await post(backend, `/svc/resources/${flow.json.id}/run.json`, {})
    expect(run.status).toBe(201)
    expect(run.json.status).toBe('pending')
    await stub.waitForRequest('/api/slow', before)
    return {backend, id: run.json.id as string}
  }

  it('a run still going when the backend closes finishes and is recorded before the store closes', async () => {
    const {backend, id} = await startPending('slow_finished')
    const closing = backend.close()
    setTimeout(() => stub.release(), 200)
    await closing
    const ended = await world.store.flows.getProcess(world.accounts.acme!, id)
    expect(ended).toMatchObject({status: 'finished', output: {answer: {temperature: 40, city: 'Slowtown'}}})
  })

  it('a run that does not end within the grace period is aborted and recorded as interrupted, never left pending', async () => {
    const {backend, id} = await startPending('slow_aborted')
    await backend.close()
    const ended = await world.store.flows.getProcess(world.accounts.acme!, id)
    expect(ended?.status).toBe('error')
    expect(ended?.error).toMatch(/interrupted|stopped/)
    stub.release()
  })
})
