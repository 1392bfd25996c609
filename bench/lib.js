// Small helpers shared by the benchmarks: timing child processes and summarising samples.
import {spawnSync} from 'node:child_process'
import {cpus, totalmem} from 'node:os'

/** Wall time of one run of `cmd args` in milliseconds (exits non-zero → throws). */
export function timeRun(cmd, args, options = {}) {
  const start = process.hrtime.bigint()
  const r = spawnSync(cmd, args, {stdio: ['ignore', 'pipe', 'pipe'], ...options})
  const ms = Number(process.hrtime.bigint() - start) / 1e6
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`)
  return ms
}

/** Runs `fn` `n` times after `warmup` runs; returns the samples. */
export function sample(n, fn, warmup = 2) {
  for (let i = 0; i < warmup; i++) fn()
  return Array.from({length: n}, fn)
}

export function percentile(samples, p) {
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

export const median = (samples) => percentile(samples, 50)

export function machine() {
  return `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`
}
