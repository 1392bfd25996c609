#!/usr/bin/env node
// Fast path: `svc prompt render` answers without loading oclif (~170 ms), from one bundled
// file (scripts/bundle-fastpath.js); anything the lean
// parser does not handle (--help, unknown flags, ...) falls through to oclif. SVC_NO_FASTPATH=1 disables it.
import module from 'node:module'

// Node 22.1+: Node's own compile cache for every module svc loads (on Node 20, dist/oclif.js and the
// fast path keep V8 code caches of their own: src/fastpath/code-cache.ts). SVC_NO_CODE_CACHE=1: neither.
if (!process.env.SVC_NO_CODE_CACHE) module.enableCompileCache?.()

const argv = process.argv.slice(2)
if (argv[0] === 'prompt' && argv[1] === 'render' && !process.env.SVC_NO_FASTPATH) {
  const {fastRender} = await import('../dist/fastpath-prompt-render.js')
  if (await fastRender(argv.slice(2))) process.exit()
}

// `#oclif` is @oclif/core bundled into one file (scripts/bundle-oclif.js), the copy every command uses.
const {execute} = await import('#oclif')
await execute({dir: import.meta.url})
