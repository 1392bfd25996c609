// Cold `svc prompt render CODE --data DIR` against `node -e 0`, in the same run (median of N runs,
// interleaved so background load hits both alike). Also shows the oclif path (SVC_NO_FASTPATH=1).
// Usage: node bench/prompt-render.js [runs=15]   (build first: npm run build)
import {spawnSync} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {tmpdir} from 'node:os'
import {join} from 'node:path'
import {fileURLToPath} from 'node:url'
import {machine, median, timeRun} from './lib.js'

const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const runs = Math.max(10, Number(process.argv[2] ?? 15))
const data = mkdtempSync(join(tmpdir(), 'svc-bench-render-'))
const env = {...process.env, SVC_URL: '', SVC_DATA: '', SVC_PROFILE: '', SVC_CONFIG_DIR: data}

function svc(args, extraEnv = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], {env: {...env, ...extraEnv}, encoding: 'utf8'})
  if (r.status !== 0) throw new Error(`svc ${args.join(' ')} exited ${r.status}: ${r.stderr}`)
  return r.stdout
}

try {
  svc(['admin', 'user', 'add', 'admin', '--role', 'admin', '--data', data, '--json'])
  svc(['prompt', 'create', '--name', 'Stored', '--code', 'stored', '--kind', 'agent', '--data', data,
    '--content', '{{ "crm_api" | api_block }}\nClient {{ client_id }} on {{ date }}.'])
  const cases = {
    node_e_0: [process.execPath, ['-e', '0'], {}],
    render_system_file: [process.execPath, [bin, 'prompt', 'render', 'crm_dashboard', '--data', data], {}],
    render_stored: [process.execPath, [bin, 'prompt', 'render', 'stored', '--data', data, '--var', 'client_id=7'], {}],
    render_stored_oclif: [process.execPath, [bin, 'prompt', 'render', 'stored', '--data', data, '--var', 'client_id=7'], {SVC_NO_FASTPATH: '1'}],
  }
  const samples = Object.fromEntries(Object.keys(cases).map((k) => [k, []]))
  for (let i = 0; i < runs + 2; i++) {
    for (const [name, [cmd, args, extra]] of Object.entries(cases)) {
      const ms = timeRun(cmd, args, {env: {...env, ...extra}})
      if (i >= 2) samples[name].push(ms) // two warm-up rounds (disk cache), not counted
    }
  }
  const m = Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, +median(v).toFixed(1)]))
  const result = {
    machine: machine(),
    runs,
    median_ms: m,
    ratio_system_file: +(m.render_system_file / m.node_e_0).toFixed(2),
    ratio_stored: +(m.render_stored / m.node_e_0).toFixed(2),
    ratio_stored_oclif: +(m.render_stored_oclif / m.node_e_0).toFixed(2),
    target_ratio: 2.0,
  }
  console.log(JSON.stringify(result, null, 2))
  if (result.ratio_stored > result.target_ratio || result.ratio_system_file > result.target_ratio) process.exitCode = 1
} finally {
  rmSync(data, {recursive: true, force: true})
}
