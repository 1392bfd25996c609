import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import SwaggerParser from '@apidevtools/swagger-parser'
import {expect, it} from 'vitest'
import {createApp} from '../../src/http/app.js'
import {createServices} from '../../src/services/index.js'
import type {Store} from '../../src/store/types.js'
import {svc} from '../helpers/cli.js'
import {tempDir} from '../helpers/world.js'

it('svc openapi prints the document, --output writes it, --server-url fills servers', async () => {
  const printed = await svc(['openapi'])
  expect(printed.code).toBe(0)
  const doc = JSON.parse(printed.stdout)
  expect(doc.openapi).toBe('3.1.0')
  await SwaggerParser.validate(structuredClone(doc))
  // The document a server serves, to the byte: both are made from the contract (no app is built to print it).
  const served = await createApp({store: {} as Store, services: createServices({} as Store), systemPromptsDirs: []}).request('http://localhost/svc/openapi.json')
  expect(printed.stdout).toBe(JSON.stringify(await served.json(), null, 2) + '\n')
  const file = join(tempDir(), 'svc-openapi.json')
  const written = await svc(['openapi', '--output', file, '--server-url', 'https://svc.example.com', '--json'])
  expect(written.code).toBe(0)
  expect(JSON.parse(written.stdout)).toMatchObject({output: file, operations: expect.any(Number)})
  const saved = JSON.parse(readFileSync(file, 'utf8'))
  expect(saved.servers).toEqual([{url: 'https://svc.example.com'}])
  expect(Object.keys(saved.paths)).toEqual(Object.keys(doc.paths))
})
