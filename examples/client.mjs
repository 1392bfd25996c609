// A script against a running svc server with the typed client of the package.
//   svc serve --data ./data &          (and a token: svc admin user add me --data ./data --json)
//   SVC_URL=http://127.0.0.1:4000 SVC_TOKEN=... node examples/client.mjs
// In a TypeScript file the same calls are typed: inputs from the route schemas, answers as PromptView, DbView...
import {createClient, isSvcError} from 'svc'

const svc = createClient({url: process.env.SVC_URL ?? 'http://127.0.0.1:4000', token: process.env.SVC_TOKEN})

const me = await svc.getMe()
console.log(`signed in as ${me.login} in ${me.account.name}`)

// A database with a schema, a record, a search.
let db
try {
  db = await svc.createDb({body: {db: {name: 'Leads', code: 'leads', schema: {fields: {name: 'string', score: 'integer'}}}}})
} catch (error) {
  if (!isSvcError(error) || error.status !== 422) throw error
  db = await svc.getDb({params: {id: 'leads'}}) // already there: {code: ['has already been taken']}
}
await svc.createRecord({params: {db_id: db.id}, body: {record: {data: {name: 'Ada', score: 42}}}})
const found = await svc.searchRecords({params: {db_id: 'leads'}, query: {q: 'Ada', sort: '-score'}})
console.log(found)

// Validation errors come back as the 422 field map.
try {
  await svc.createPrompt({body: {prompt: {name: '', code: 'bad code!'}}})
} catch (error) {
  if (isSvcError(error)) console.log(error.status, error.details) // 422 { name: ["can't be blank"], code: [...], content: [...] }
  else throw error
}

// Markdown answers are strings.
const text = await svc.renderPrompt({params: {code: 'helper'}, query: {date: '2026-01-31'}}).catch(() => '(no prompt "helper")')
console.log(text)
