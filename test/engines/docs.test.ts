// Issue 30: docs/apps.md describes every engine of the registry: its library (and version) and
// each compat note, as the registry declares them. A new engine without its docs fails here.
import {readFileSync} from 'node:fs'
import {join} from 'node:path'
import {expect, it} from 'vitest'
import {APP_ENGINES, CSS_ENGINES, engineSpec} from '../../src/engines/index.js'

const doc = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'apps.md'), 'utf8')

it('docs/apps.md names every app engine with its library and its compat notes, and every CSS engine', () => {
  for (const name of APP_ENGINES) {
    const spec = engineSpec(name)
    const row = doc.split('\n').find((line) => line.startsWith(`| \`${name}\` |`))
    expect(row, `a table row for ${name}`).toBeDefined()
    expect(row, name).toContain(`| ${spec.library} |`)
    for (const note of spec.compat) expect(doc, `${name} compat note`).toContain(note)
  }
  for (const name of CSS_ENGINES) expect(doc).toContain(`\`${name}\``)
})
