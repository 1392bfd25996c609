import {evaluateCondition} from './condition.js'
import {FlowRunError, interpolate, jsonBytes, setPath, type JsonObject} from './data.js'
import type {FlowLimits} from './limits.js'
import {checkProgram, type CheckedProgram, type Step} from './program.js'

/** A connector call asked for by a step; the runner's host performs it (HTTP, with the secret). */
export interface ConnectorCall {
  connector: string
  method: string
  params: JsonObject
}

/** What the runner needs from the outside world: only connector calls. */
export interface RunHooks {
  callConnector(call: ConnectorCall, signal: AbortSignal): Promise<unknown>
}

export interface RunResult {
  data: JsonObject
  /** Steps executed (an `if` counts as one, plus the steps of the branch taken). */
  steps: number
}

/**
 * Runs a flow program over its input: the data starts as a copy of the input object and each
 * step reads and writes it. Pure step logic; connector I/O comes from `hooks`. Throws
 * FlowRunError with the run's error text.
 */
export async function runProgram(
  program: unknown,
  input: JsonObject,
  hooks: RunHooks,
  limits: Pick<FlowLimits, 'maxExecutedSteps' | 'maxDataBytes' | 'maxStringLength'>,
  signal: AbortSignal,
): Promise<RunResult> {
  const checked = checkProgram(program)
  if (!checked.program) throw new FlowRunError(`invalid program: ${checked.errors.join('; ')}`)
  const data: JsonObject = structuredClone(input)
  const state = {steps: 0}
  try {
    await runSteps(checked.program.steps, checked.program, data, hooks, limits, signal, state)
  } catch (error) {
    if (error instanceof FlowRunError) {
      error.steps = state.steps
      if (jsonBytes(data) <= limits.maxDataBytes) error.data = data
    }
    throw error
  }
  return {data, steps: state.steps}
}

async function runSteps(
  steps: Step[], checked: CheckedProgram, data: JsonObject, hooks: RunHooks,
  limits: Pick<FlowLimits, 'maxExecutedSteps' | 'maxDataBytes' | 'maxStringLength'>, signal: AbortSignal, state: {steps: number},
): Promise<void> {
  for (const step of steps) {
    if (signal.aborted) throw new FlowRunError(abortText(signal))
    if (++state.steps > limits.maxExecutedSteps) throw new FlowRunError(`more than ${limits.maxExecutedSteps} steps executed`)
    switch (step.type) {
      case 'connector': {
        const params = interpolate(step.params ?? {}, data, limits.maxStringLength) as JsonObject
        const result = await hooks.callConnector({connector: step.connector, method: step.method, params}, signal)
        setPath(data, step.into ?? step.method, result)
        break
      }
      case 'mutation': {
        // Every value is computed from the data as it was before this step, then written.
        const values = Object.entries(step.set).map(([path, value]) => [path, interpolate(value, data, limits.maxStringLength)] as const)
        for (const [path, value] of values) setPath(data, path, value)
        break
      }
      case 'if': {
        const compiled = checked.conditions.get(step)!
        const branch = evaluateCondition(step.condition, compiled, data) ? step.then : step.else
        if (branch) await runSteps(branch, checked, data, hooks, limits, signal, state)
        break
      }
    }
    if (jsonBytes(data) > limits.maxDataBytes) throw new FlowRunError(`the flow data grew beyond ${limits.maxDataBytes} bytes`)
  }
}

function abortText(signal: AbortSignal): string {
  const reason = signal.reason as unknown
  if (reason instanceof Error && reason.name === 'TimeoutError') return 'the run took too long and was stopped'
  if (reason instanceof Error && reason.message) return reason.message
  return 'the run was stopped'
}
