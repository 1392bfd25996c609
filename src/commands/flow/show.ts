import {Args} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'
import type {Client} from '../../client/backend.js'
import {SvcError} from '../../core/errors.js'
import type {FlowProcess, FlowProcessDetail} from '../../core/flows/processes.js'
import type {Resource} from '../../core/flows/resources.js'

/** Polls until a reply is no longer `pending` (every 500 ms, at most `timeoutSeconds`). */
export async function pollUntilEnded<T extends {status: string}>(read: () => Promise<T>, first: T, timeoutSeconds: number): Promise<T> {
  let current = first
  const deadline = Date.now() + timeoutSeconds * 1000
  while (current.status === 'pending') {
    if (Date.now() > deadline) throw new SvcError('network', 0, `still pending after ${timeoutSeconds} s`, undefined, 'look later with: svc flow runs')
    await new Promise((r) => setTimeout(r, 500))
    current = await read()
  }
  return current
}

/** Waits for a flow process to end. */
export const waitForProcess = (client: Client, run: FlowProcessDetail, timeoutSeconds: number) =>
  pollUntilEnded(() => client.call('getFlowProcess', {params: {id: run.id}}), run, timeoutSeconds)

/** The flow (svc/custom_flow) with this code, or a 404 with a hint. */
export async function flowByCode(client: Client, code: string): Promise<Resource> {
  const [flow] = await client.call('listResources', {query: {kind: 'svc/custom_flow', code}})
  if (!flow) throw new SvcError('not_found', 404, `no flow "${code}"`, undefined, 'list flows with: svc flow list')
  return flow
}

/** Human lines of a flow process. */
export function processLines(p: FlowProcess): string[] {
  const lines = [`${p.id}  ${p.flow_code}  ${p.status}  (${p.trigger}${p.cron_id ? ` ${p.cron_id}` : ''}${p.action ? ` ${p.action}` : ''})`]
  lines.push(`started ${p.started_at}${p.finished_at ? `, finished ${p.finished_at} (${p.duration_ms} ms, ${p.steps} steps)` : ''}`)
  lines.push(`input: ${JSON.stringify(p.input)}`)
  if (p.error) lines.push(`error: ${p.error}`)
  if (p.output) lines.push(`output: ${JSON.stringify(p.output, null, 2)}`)
  const trace = (p as Partial<FlowProcessDetail>).trace
  if (trace?.steps.length) {
    // What ran, step by step (the whole trace, inputs and outputs included, is in --json).
    lines.push('steps:')
    for (const step of trace.steps) {
      lines.push(`  ${step.path}  ${step.label}  ${step.duration_ms} ms${step.error ? `  failed: ${step.error}` : ''}`)
    }
    if (trace.omitted_steps) lines.push(`  … ${trace.omitted_steps} more steps not kept (the trace is at most 64 KB)`)
  }
  return lines
}

export default class FlowShow extends BackendCommand {
  static description = 'Show one flow run (status, input, output, error, timings)'
  static examples = ['<%= config.bin %> flow show 0190c3e4-7b1a-7c3e-9a1b-2f4d5e6a7b8c']
  static args = {id: Args.string({description: 'flow process id', required: true})}

  async run() {
    const {args, flags} = await this.parse(FlowShow)
    const run = await (await this.client(flags)).call('getFlowProcess', {params: {id: args.id}}).catch((error: unknown) => {
      if (error instanceof SvcError && error.code === 'not_found') throw new SvcError('not_found', 404, `no flow run "${args.id}"`, undefined, 'list runs and their ids with: svc flow runs')
      throw error
    })
    for (const line of processLines(run)) this.say(line)
    return run
  }
}
