import {evaluateCondition} from './condition.js'
import {FlowRunError, interpolate, jsonBytes, setPath, type JsonObject} from './data.js'
import type {FlowLimits} from './limits.js'
import {checkProgram, type CheckedProgram, type Step} from './program.js'
import {TraceRecorder, type FlowTrace, type StepRecord} from './trace.js'

/** A connector call asked for by a step; the runner's host performs it (HTTP, with the secret). */
export interface ConnectorCall {
  connector: string
  method: string
  params: JsonObject
}

/**
 * What the host tells the trace about a connector call, as far as it got: the request it built
 * (HTTP method, path parameters, query or body — never a header or a credential) and the status
 * the upstream answered.
 */
export interface ConnectorSeen {
  request?: JsonObject
  status?: number
}

/** What the runner needs from the outside world: only connector calls. */
export interface RunHooks {
  callConnector(call: ConnectorCall, signal: AbortSignal, seen: ConnectorSeen): Promise<unknown>
}

export interface RunResult {
  data: JsonObject
  /** Steps executed (an `if` counts as one, plus the steps of the branch taken). */
  steps: number
  trace: FlowTrace
}

type RunLimits = Pick<FlowLimits, 'maxExecutedSteps' | 'maxDataBytes' | 'maxStringLength'>

interface RunState {
  checked: CheckedProgram
  data: JsonObject
  hooks: RunHooks
  limits: RunLimits
  signal: AbortSignal
  steps: number
  trace: TraceRecorder
}

/**
 * Runs a flow program over its input: the data starts as a copy of the input object and each
 * step reads and writes it. Pure step logic; connector I/O comes from `hooks`. Throws
 * FlowRunError with the run's error text (and the steps, data and trace so far).
 */
export async function runProgram(program: unknown, input: JsonObject, hooks: RunHooks, limits: RunLimits, signal: AbortSignal): Promise<RunResult> {
  const checked = checkProgram(program)
  if (!checked.program) throw new FlowRunError(`invalid program: ${checked.errors.join('; ')}`)
  const state: RunState = {checked: checked.program, data: structuredClone(input), hooks, limits, signal, steps: 0, trace: new TraceRecorder()}
  try {
    await runSteps(checked.program.steps, '', state)
  } catch (error) {
    if (error instanceof FlowRunError) {
      error.steps = state.steps
      error.trace = state.trace.result()
      if (jsonBytes(state.data) <= limits.maxDataBytes) error.data = state.data
    }
    throw error
  }
  return {data: state.data, steps: state.steps, trace: state.trace.result()}
}

async function runSteps(steps: Step[], where: string, state: RunState): Promise<void> {
  const {data, limits, signal} = state
  for (const [index, step] of steps.entries()) {
    if (signal.aborted) throw new FlowRunError(abortText(signal))
    if (++state.steps > limits.maxExecutedSteps) throw new FlowRunError(`more than ${limits.maxExecutedSteps} steps executed`)
    const path = where ? `${where}.${index + 1}` : `${index + 1}`
    const record: StepRecord = {path, type: step.type, label: stepLabel(step), durationMs: 0}
    const started = performance.now()
    let branch: {steps: Step[]; path: string} | undefined
    try {
      switch (step.type) {
        case 'connector': {
          const params = interpolate(step.params ?? {}, data, limits.maxStringLength) as JsonObject
          const seen: ConnectorSeen = {}
          record.input = {connector: step.connector, method: step.method, params}
          try {
            const result = await state.hooks.callConnector({connector: step.connector, method: step.method, params}, signal, seen)
            record.output = {status: seen.status ?? null, value: result ?? null}
            setPath(data, step.into ?? step.method, result)
          } finally {
            if (seen.request) record.input = {connector: step.connector, method: step.method, ...seen.request}
            if (record.output === undefined && seen.status !== undefined) record.output = {status: seen.status}
          }
          break
        }
        case 'mutation': {
          // Every value is computed from the data as it was before this step, then written.
          const values = Object.entries(step.set).map(([key, value]) => [key, interpolate(value, data, limits.maxStringLength)] as const)
          record.input = Object.fromEntries(values)
          for (const [key, value] of values) setPath(data, key, value)
          break
        }
        case 'if': {
          const result = evaluateCondition(step.condition, state.checked.conditions.get(step)!, data)
          const taken = result ? 'then' : 'else'
          record.input = {condition: step.condition, result}
          record.output = {branch: step[taken] ? taken : null}
          if (step[taken]) branch = {steps: step[taken], path: `${path}.${taken}`}
          break
        }
      }
      if (jsonBytes(data) > limits.maxDataBytes) throw new FlowRunError(`the flow data grew beyond ${limits.maxDataBytes} bytes`)
    } catch (error) {
      record.error = error instanceof FlowRunError ? error.message : 'internal error'
      throw error
    } finally {
      record.durationMs = performance.now() - started
      state.trace.record(record)
    }
    if (branch) await runSteps(branch.steps, branch.path, state)
  }
}

/** A short description of a step for the trace. */
export function stepLabel(step: Step): string {
  switch (step.type) {
    case 'connector': return `${step.connector}.${step.method}${step.into ? ` → ${step.into}` : ''}`
    case 'mutation': return `set ${Object.keys(step.set).join(', ')}`
    case 'if': return `if ${step.condition}`
  }
}

function abortText(signal: AbortSignal): string {
  const reason = signal.reason as unknown
  if (reason instanceof Error && reason.name === 'TimeoutError') return 'the run took too long and was stopped'
  if (reason instanceof Error && reason.message) return reason.message
  return 'the run was stopped'
}
