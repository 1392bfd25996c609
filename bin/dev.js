#!/usr/bin/env -S node --import tsx/esm --no-warnings
// Runs the TypeScript sources (oclif's development mode). CommonJS, as bin/run.js (bin/package.json):
// `dir` is the package root.
'use strict'
const {join} = require('node:path')

import('../dist/oclif.js').then(({execute}) => execute({development: true, dir: join(__dirname, '..')}))
