/**
 * vitest globalSetup: with `SVC_TEST_DATABASE_URL`, builds the migrated template database the
 * PostgreSQL half clones for each world (test/helpers/pg.ts). Without it, does nothing.
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {adminQuery, databaseUrl, PG_URL, openTestStore} from './pg.js'

export default async function setup(): Promise<(() => Promise<void>) | void> {
  if (!PG_URL) return
  // This run's own template (test/helpers/pg.ts reads the name in each test process, which inherits it).
  const template = `svc_template_${process.pid}`
  process.env.SVC_TEST_TEMPLATE_DB = template
  await adminQuery(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`)
  await adminQuery(`CREATE DATABASE ${template}`)
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-pg-template-'))
  try {
    // Opening the store runs every migration; closing it leaves the template free to clone.
    const store = await openTestStore(dataDir, databaseUrl(template))
    await store.close()
  } finally {
    rmSync(dataDir, {recursive: true, force: true})
  }
  return async () => {
    await adminQuery(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`)
  }
}
