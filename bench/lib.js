// Small helpers shared by the benchmarks: timing child processes and summarising samples.
import {spawn, spawnSync} from 'node:child_process'
import {readFileSync} from 'node:fs'
import {cpus, totalmem} from 'node:os'
import {join} from 'node:path'

/** Wall time of one run of `cmd args` in milliseconds (exits non-zero → throws). */
export function timeRun(cmd, args, options = {}) {
  const start = process.hrtime.bigint()
  const r = spawnSync(cmd, args, {stdio: ['ignore', 'pipe', 'pipe'], ...options})
  const ms = Number(process.hrtime.bigint() - start) / 1e6
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}: ${r.stderr}`)
  return ms
}

/**
 * One run of `cmd args` timed by bash's `time`: its wall time and the CPU time it used (user +
 * system, of the command alone, in ms). On a machine shared with other work the CPU time is the
 * figure a change of the command can move; the wall time also measures the scheduler.
 */
export function timeRunCpu(cmd, args, options = {}) {
  const script = 'TIMEFORMAT="%3R %3U %3S"; time "$@" >/dev/null 2>/dev/null'
  const r = spawnSync('bash', ['-c', script, 'bash', cmd, ...args], {stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8', ...options})
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${r.status}`)
  const [real, user, sys] = r.stderr.trim().split('\n').at(-1).split(' ').map(Number)
  return {wall: real * 1000, cpu: (user + sys) * 1000}
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

/**
 * The deterministic people of the db benchmarks (bench/dbs.js, dbs-pg.js, compare-filter.mjs): a small
 * LCG from seed 42, so runs, drivers and builds hold the same records. Names are syllables of SYL.
 * `pick` draws from the same sequence (a common fragment: two syllables' letters).
 */
export function syntheticPeople() {
  let seed = 42
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648)
  const pick = (a) => a[Math.floor(rand() * a.length)]
  const word = (n) => Array.from({length: n}, () => pick(SYL)).join('')
  const cities = Array.from({length: 200}, () => word(3))
  const person = (i) => {
    const name = `${word(3)} ${word(4)}`
    return {name, email: `${name.replace(' ', '.')}.${i}@example.com`, city: pick(cities), age: 18 + Math.floor(rand() * 70),
      born: `19${50 + Math.floor(rand() * 50)}-0${1 + Math.floor(rand() * 9)}-1${Math.floor(rand() * 9)}`, note: word(6)}
  }
  return {person, pick}
}
/** The db those people live in: every field typed, five of them index columns. */
export const PEOPLE_SCHEMA = {
  fields: {name: 'string', email: 'string', city: 'string', age: 'integer', born: 'date', note: 'text'},
  indexed_fields: ['email', 'city', 'name', 'age', 'born'],
}
export const SYL = ['ka', 'lo', 'mi', 'ra', 'te', 'sv', 'an', 'bo', 'ne', 'qu', 'zi', 'pe', 'do', 'ru', 'fa', 'gy', 'hu', 'ix', 'jo', 'we']

/**
 * A real `svc serve --port 0 --quiet` of `root`'s build with `args` (a data dir, a database URL,
 * quotas…): its URL once it listens, and `stop()` (SIGTERM; SIGKILL after 15 s) that resolves when
 * the process has exited.
 */
export async function startServe(root, args) {
  // BENCH_SERVER_NODE_FLAGS: Node flags for the server only (e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`).
  const flags = process.env.BENCH_SERVER_NODE_FLAGS ? process.env.BENCH_SERVER_NODE_FLAGS.split(' ').filter(Boolean) : []
  const server = spawn(process.execPath, [...flags, join(root, 'bin/run.js'), 'serve', '--port', '0', '--quiet', ...args], {stdio: ['ignore', 'pipe', 'inherit']})
  const url = await new Promise((resolve, reject) => {
    let out = ''
    server.stdout.on('data', (d) => {
      out += d
      const m = /Listening on (\S+)/.exec(out)
      if (m) resolve(m[1])
    })
    server.once('exit', (code) => reject(new Error(`svc serve exited ${code}`)))
  })
  const stop = async () => {
    server.kill('SIGTERM')
    const killer = setTimeout(() => server.kill('SIGKILL'), 15_000)
    await new Promise((r) => (server.exitCode === null && server.signalCode === null ? server.once('exit', r) : r()))
    clearTimeout(killer)
  }
  return {url, server, stop}
}

/**
 * The main thread's CPU time so far in ms (Linux: /proc/self/task/PID/schedstat, nanoseconds on the
 * CPU), or null elsewhere. Between two ticks of the timer it is how long the thread itself computed,
 * without the time the OS gave the CPU to other processes (a loaded machine stretches wall gaps).
 */
export function threadCpuMs() {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6
  } catch {
    return null
  }
}

/**
 * Runs `op` while a timer ticks every millisecond: the longest time between two ticks is what another
 * request waits at worst (wall), and the longest stretch of the thread's own CPU time between two ticks (cpu).
 */
export async function stall(op) {
  let last = performance.now()
  let lastCpu = threadCpuMs()
  let longest = 0
  let longestCpu = 0
  let running = true
  const tick = () => {
    const t = performance.now()
    const cpu = threadCpuMs()
    longest = Math.max(longest, t - last)
    if (cpu !== null) longestCpu = Math.max(longestCpu, cpu - lastCpu)
    last = t
    lastCpu = cpu
    if (running) setTimeout(tick, 1)
  }
  setTimeout(tick, 1)
  const t0 = performance.now()
  const cpu0 = threadCpuMs()
  await op()
  const tookMs = Math.round(performance.now() - t0)
  const cpuMs = cpu0 === null ? null : Math.round(threadCpuMs() - cpu0)
  await new Promise((resolve) => setTimeout(resolve, 5)) // the turn after the operation ends its last gap
  running = false
  await new Promise((resolve) => setTimeout(resolve, 5))
  return {longestGapMs: Math.round(longest), longestCpuMs: Math.round(longestCpu), tookMs, cpuMs}
}
