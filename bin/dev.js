#!/usr/bin/env -S node --import tsx/esm --no-warnings
import {execute} from '#oclif'

await execute({development: true, dir: import.meta.url})
