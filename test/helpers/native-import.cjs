// Node's own import(), for modules vitest must not transform (the built dist/ the CLI runs):
// loaded with require() from test/helpers/cli.ts, this file is outside vitest's module runner.
module.exports = (url) => import(url)
