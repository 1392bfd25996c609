// The Node versions package.json's `engines` states are ones every runtime dependency declares it
// runs on (issue 25 item 12: `>=20.18` while vite 8, rolldown, the vite plugins and chokidar 5 need
// ^20.19). The lowest version of each line the range allows (20.19.0, 22.12.0, ...) must satisfy
// the `engines.node` of every package of the installed runtime dependency tree.
import {existsSync, readFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {dirname, join} from 'node:path'
import {expect, it} from 'vitest'
import {ROOT} from '../helpers/cli.js'

const require = createRequire(join(ROOT, 'package.json'))
// semver: npm's own version-range library (installed with oclif and npm's tooling).
const semver = require('semver') as typeof import('semver')

interface Manifest {
  name: string
  version: string
  engines?: {node?: string}
  dependencies?: Record<string, string>
  optionalDependencies?: Record<string, string>
}

const readManifest = (path: string) => JSON.parse(readFileSync(path, 'utf8')) as Manifest

/** The package.json Node's resolution finds for `name` from `dir` (node_modules upwards), or null. */
function resolvePackage(name: string, dir: string): string | null {
  for (let d = dir; ; d = dirname(d)) {
    const path = join(d, 'node_modules', name, 'package.json')
    if (existsSync(path)) return path
    if (dirname(d) === d) return null
  }
}

/** Every installed package of the runtime tree (dependencies and optional ones, not devDependencies). */
function runtimeTree(): Manifest[] {
  const seen = new Map<string, Manifest>()
  const walk = (path: string) => {
    const manifest = readManifest(path)
    for (const [deps, optional] of [[manifest.dependencies, false], [manifest.optionalDependencies, true]] as const) {
      for (const name of Object.keys(deps ?? {})) {
        const found = resolvePackage(name, dirname(path))
        if (!found) {
          // An optional dependency for another platform is not installed; a missing required one is an install problem.
          expect(optional, `${manifest.name} needs ${name}, which is not installed`).toBe(true)
          continue
        }
        if (seen.has(found)) continue
        seen.set(found, readManifest(found))
        walk(found)
      }
    }
  }
  walk(join(ROOT, 'package.json'))
  return [...seen.values()]
}

it('every lowest Node version package.json allows runs every runtime dependency', () => {
  const own = readManifest(join(ROOT, 'package.json')).engines?.node
  expect(own).toBeTruthy()
  const range = new semver.Range(own!)
  // The lowest version of each alternative (`^20.19.0 || >=22.12.0` → 20.19.0 and 22.12.0).
  const lowest = range.set.map((comparators) => semver.minVersion(new semver.Range(comparators.map((c) => c.value).join(' ')))!.version)
  const packages = runtimeTree()
  expect(packages.length).toBeGreaterThan(50)
  const refused: string[] = []
  for (const pkg of packages) {
    const theirs = pkg.engines?.node
    if (!theirs || !semver.validRange(theirs)) continue
    for (const version of lowest) {
      if (!semver.satisfies(version, theirs)) refused.push(`${pkg.name}@${pkg.version} (engines.node "${theirs}") does not run on Node ${version}`)
    }
  }
  expect(refused, `package.json engines.node is "${own}"`).toEqual([])
})

it('the README states the same Node versions', () => {
  const own = readManifest(join(ROOT, 'package.json')).engines?.node
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const lowest = new semver.Range(own!).set.map((comparators) => semver.minVersion(new semver.Range(comparators.map((c) => c.value).join(' ')))!.version)
  for (const version of lowest) expect(readme).toContain(version.replace(/(\.0)+$/, ''))
})
