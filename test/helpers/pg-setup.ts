/**
 * vitest globalSetup: with `SVC_TEST_DATABASE_URL`, builds the migrated template database the
 * PostgreSQL half clones for each world (test/helpers/pg.ts). Without it, does nothing.
 */
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {adminQuery, databaseUrl, PG_URL, TEMPLATE_DB, openTestStore} from './pg.js'

export default async function setup(): Promise<void> {
  if (!PG_URL) return
  await adminQuery(`DROP DATABASE IF EXISTS ${TEMPLATE_DB} WITH (FORCE)`)
  await adminQuery(`CREATE DATABASE ${TEMPLATE_DB}`)
  const dataDir = mkdtempSync(join(tmpdir(), 'svc-pg-template-'))
  try {
    // Opening the store runs every migration; closing it leaves the template free to clone.
    const store = await openTestStore(dataDir, databaseUrl(TEMPLATE_DB))
    await store.close()
  } finally {
    rmSync(dataDir, {recursive: true, force: true})
  }
}
