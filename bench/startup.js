// CLI cold start against `node -e 0`, hyperfine-like: every case runs in turn in each round
// (interleaved, so background load hits all alike), two warm-up rounds (disk cache) not counted,
// then N rounds; medians, the lower quartiles (the figure least disturbed by other processes) and
// the ratios of each to `node -e 0`; the same for the CPU time each start used (user + system, from
// bash's `time`: on a shared machine the wall time also measures the scheduler), and the load average.
// Cases: `svc --help` (oclif) and `svc prompt render CODE --data DIR` (the fast path, stored prompt).
// Usage: node bench/startup.js [runs=30] [--compare=OTHER/bin/run.js]   (build first: npm run build)
// --compare adds the same two cases for another build of svc (e.g. the commit before a change,
// built in a copy), in the same rounds: before/after under the same load.
import {spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {loadavg} from 'node:os'
import {machine, median, percentile, timeRunCpu} from './lib.js'

const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const runs = Math.max(10, Number(process.argv.slice(2).find((a) => !a.startsWith('--')) ?? 30))
const compare = process.argv.find((a) => a.startsWith('--compare='))?.slice('--compare='.length)
const data = mkdtempSync(join(tmpdir(), 'svc-bench-startup-'))
const env = {...process.env, SVC_URL: '', SVC_DATA: '', SVC_PROFILE: '', SVC_CONFIG_DIR: data, NODE_OPTIONS: ''}

function svc(args, binary = bin) {
  const r = spawnSync(process.execPath, [binary, ...args], {env, encoding: 'utf8'})
  if (r.status !== 0) throw new Error(`svc ${args.join(' ')} exited ${r.status}: ${r.stderr}`)
  return r.stdout
}

try {
  svc(['admin', 'user', 'add', 'admin', '--role', 'admin', '--data', data, '--json'])
  svc(['prompt', 'create', '--name', 'Stored', '--code', 'stored', '--kind', 'agent', '--data', data,
    '--content', '{{ "crm_api" | api_block }}\nClient {{ client_id }} on {{ date }}.'])
  const cases = {
    node_e_0: [process.execPath, ['-e', '0']],
    svc_help: [process.execPath, [bin, '--help']],
    svc_prompt_render: [process.execPath, [bin, 'prompt', 'render', 'stored', '--data', data, '--var', 'client_id=7']],
    ...(compare ? {
      compare_svc_help: [process.execPath, [compare, '--help']],
      compare_svc_prompt_render: [process.execPath, [compare, 'prompt', 'render', 'stored', '--data', data, '--var', 'client_id=7']],
    } : {}),
  }
  const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]))
  const cpuSamples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]))
  const load = [loadavg()[0]]
  for (let i = 0; i < runs + 2; i++) {
    for (const [name, [cmd, args]] of Object.entries(cases)) {
      const {wall, cpu} = timeRunCpu(cmd, args, {env})
      if (i >= 2) {
        samples[name].push(wall)
        cpuSamples[name].push(cpu)
      }
    }
  }
  load.push(loadavg()[0])
  const fig = (f, from = samples) => Object.fromEntries(Object.entries(from).map(([k, v]) => [k, +f(v).toFixed(1)]))
  const med = fig(median)
  const p25 = fig((v) => percentile(v, 25))
  const cpu = fig(median, cpuSamples)
  const ratio = (a, b) => +(a / b).toFixed(2)
  const result = {
    machine: machine(),
    runs,
    load_average_start_end: load.map((l) => +l.toFixed(1)),
    cpu_median_ms: cpu,
    cpu_ratio_help: ratio(cpu.svc_help, cpu.node_e_0),
    cpu_ratio_render: ratio(cpu.svc_prompt_render, cpu.node_e_0),
    ...(compare ? {
      cpu_compare_ratio_help: ratio(cpu.compare_svc_help, cpu.node_e_0),
      cpu_compare_ratio_render: ratio(cpu.compare_svc_prompt_render, cpu.node_e_0),
    } : {}),
    median_ms: med,
    p25_ms: p25,
    ratio_help: +(med.svc_help / med.node_e_0).toFixed(2),
    ratio_render: +(med.svc_prompt_render / med.node_e_0).toFixed(2),
    ratio_help_p25: +(p25.svc_help / p25.node_e_0).toFixed(2),
    ratio_render_p25: +(p25.svc_prompt_render / p25.node_e_0).toFixed(2),
    ...(compare ? {
      compare: compare,
      compare_ratio_help: +(med.compare_svc_help / med.node_e_0).toFixed(2),
      compare_ratio_render: +(med.compare_svc_prompt_render / med.node_e_0).toFixed(2),
    } : {}),
    // Issue 25 item 14.
    target_ratio_help: 2.0,
    target_ratio_render: 1.5,
  }
  console.log(JSON.stringify(result, null, 2))
  if (result.cpu_ratio_help > result.target_ratio_help || result.cpu_ratio_render > result.target_ratio_render) process.exitCode = 1
} finally {
  rmSync(data, {recursive: true, force: true})
}
