// CLI cold start: `svc --help` against `node -e 0`, measured in the same run (median of N).
import {fileURLToPath} from 'node:url'
import {machine, median, sample, timeRun} from './lib.js'

const bin = fileURLToPath(new URL('../bin/run.js', import.meta.url))
const runs = Number(process.argv[2] ?? 15)

const node = sample(runs, () => timeRun(process.execPath, ['-e', '0']))
const help = sample(runs, () => timeRun(process.execPath, [bin, '--help']))
const result = {
  machine: machine(),
  runs,
  node_e_0_ms: +median(node).toFixed(1),
  svc_help_ms: +median(help).toFixed(1),
  ratio: +(median(help) / median(node)).toFixed(2),
  // Issue 18: ≤ 300 ms here (the CLI's first target was 500).
  target_ms: 300,
}
console.log(JSON.stringify(result, null, 2))
if (result.svc_help_ms > result.target_ms) process.exitCode = 1
