// @ts-check
// The engines of this server as the API states them (`GET /svc/engines.json`, from the engine
// registry): the console names no engine itself. Read once per page.
import {svc} from './client.js'

/** @type {Promise<import('../../../src/sdk.ts').CallOutput<'listEngines'>> | null} */
let facts = null

/** The engines: `{app_engines: [{name, library, language, source_file, builds}], css_engines, default_app_engine, default_css_engine}`. */
export function engines() {
  facts ??= svc.listEngines().catch((e) => {
    facts = null
    throw e
  })
  return facts
}
