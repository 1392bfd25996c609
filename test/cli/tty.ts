/**
 * Runs `svc` on a real terminal (a pseudo-terminal from util-linux `script`), for what only
 * happens on a terminal: confirmations, colour. Keys are written up front; the terminal buffers
 * them until the prompt reads.
 */
import {spawn} from 'node:child_process'
import {BIN, cliEnv} from '../helpers/cli.js'

export interface TtyResult {
  code: number
  /** stdout and stderr together, as a terminal shows them. */
  output: string
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`

/** `columns`: the terminal's width (`script`'s terminal has none: spinners and bars stay hidden without one). */
export function svcTty(args: string[], options: {keys?: string; env?: Record<string, string>; cwd?: string; columns?: number} = {}): Promise<TtyResult> {
  // cliEnv: no SVC_*, no NODE_ENV=test (test/helpers/cli.ts); a terminal's colours, not CI.
  const env = cliEnv({NO_COLOR: undefined, FORCE_COLOR: undefined, CI: undefined, TERM: 'xterm-256color', ...options.env})
  const command = (options.columns ? `stty cols ${options.columns} rows 40; ` : '') + [process.execPath, BIN, ...args].map(quote).join(' ')
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', command, '/dev/null'], {env, cwd: options.cwd})
    let output = ''
    child.stdout.on('data', (d) => (output += d))
    child.stderr.on('data', (d) => (output += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({code: code ?? -1, output}))
    child.stdin.write(options.keys ?? '')
    // Keep stdin open until the command ends: `script` stops when its input closes.
    child.on('exit', () => child.stdin.end())
  })
}

export const plain = (s: string) => s.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '')
