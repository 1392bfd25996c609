#!/usr/bin/env node
// CommonJS (bin/package.json): a start that needs no ES module (the `prompt render` fast path) does
// not pay for Node's ES module loader (~5 ms of a cold start on Node 20).
//
// Fast path: `svc prompt render` answers without loading oclif (~170 ms), from one bundled file
// loaded with a V8 code cache (scripts/bundle-fastpath.js); anything its lean parser does not
// handle (--help, unknown flags, ...) falls through to oclif. SVC_NO_FASTPATH=1 disables it.
'use strict'
const {join} = require('node:path')

// Node 22.1+: Node's own compile cache for every module svc loads (on Node 20, the oclif bundle and
// the fast path keep V8 code caches of their own: src/fastpath/code-cache.ts). SVC_NO_CODE_CACHE=1: neither.
if (!process.env.SVC_NO_CODE_CACHE) require('node:module').enableCompileCache?.()

const root = join(__dirname, '..')

async function main() {
  const argv = process.argv.slice(2)
  if (argv[0] === 'prompt' && argv[1] === 'render' && !process.env.SVC_NO_FASTPATH) {
    const {loadWithCodeCache} = require('../dist/code-cache.cjs')
    const {pathToFileURL} = require('node:url')
    const {fastRender} = loadWithCodeCache(pathToFileURL(join(root, 'dist', 'fastpath-prompt-render.cjs')))
    if (await fastRender(argv.slice(2), () => import('../dist/fastpath-backend-render.js'))) process.exit()
  }
  // dist/oclif.js: @oclif/core bundled into one file (scripts/bundle-oclif.js), the copy every command
  // imports as `#oclif`. `dir` is the package root (bin/ has a package.json of its own).
  const {execute} = await import('../dist/oclif.js')
  await execute({dir: root})
}

main()
