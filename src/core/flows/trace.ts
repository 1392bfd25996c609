/**
 * A run's trace: one entry per executed step, in execution order (an `if` before the steps of its
 * branch), with the step's resolved input, its output, its error and its duration. Bounded: each
 * input/output at most TRACE_LIMITS.maxValueBytes of JSON (else cut to a JSON text preview and
 * marked `truncated`), the whole trace at most TRACE_LIMITS.maxTraceBytes. Pure; no I/O.
 */
import {jsonBytes} from './data.js'

export const TRACE_LIMITS = {
  /** JSON size of one step's input, and of its output. */
  maxValueBytes: 4 * 1024,
  /** JSON size of the whole trace. */
  maxTraceBytes: 64 * 1024,
  /** Room kept at the end of the trace for the failing step (its entry without input/output fits in it, escapes included). */
  errorReserveBytes: 8 * 1024,
  /** Characters of a step's label and of its error text. */
  maxLabelLength: 120,
  maxErrorLength: 1000,
} as const

export type TraceStepType = 'connector' | 'mutation' | 'if'

export interface TraceStep {
  /** Where the step is in the program, 1-based: `2`, `3.then.1`. */
  path: string
  type: TraceStepType
  /** A short description: `weather.current → json_object`, `set alert, temperature`, `if {t} > 30`. */
  label: string
  /** What the step worked on, placeholders resolved (never a credential). */
  input?: unknown
  /** What it produced (a connector: the upstream status and the value stored into the data). */
  output?: unknown
  /** Why it failed; only the last step of a failed run has one. */
  error?: string
  duration_ms: number
  /** Its input or output was cut (to a JSON text preview), or left out to keep the trace bounded. */
  truncated?: true
}

export interface FlowTrace {
  steps: TraceStep[]
  /** Executed steps left out because the trace reached its size bound. */
  omitted_steps: number
}

/** What the run reports of a step, before the recorder bounds it into a TraceStep. */
export type StepRecord = Omit<TraceStep, 'duration_ms' | 'truncated'> & {durationMs: number}

const clip = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text)

/**
 * A value bounded to `max` bytes of JSON: itself, or the start of its JSON text ending in `…` (cut
 * on a character boundary, short enough that the preview's own JSON, escapes included, fits).
 */
export function boundValue(value: unknown, max: number): {value: unknown; truncated: boolean} {
  const text = JSON.stringify(value) ?? 'null'
  if (Buffer.byteLength(text, 'utf8') <= max) return {value, truncated: false}
  const bytes = Buffer.from(text, 'utf8')
  for (let size = max - 8; ; ) {
    const preview = `${bytes.subarray(0, Math.max(0, size)).toString('utf8').replace(/\uFFFD$/, '')}…`
    const previewBytes = jsonBytes(preview)
    if (previewBytes <= max || size <= 0) return {value: preview, truncated: true}
    size = Math.floor((size * max) / previewBytes) - 8
  }
}

/** Collects the entries of one run within the bounds. */
export class TraceRecorder {
  private readonly trace: FlowTrace = {steps: [], omitted_steps: 0}
  private bytes = jsonBytes(this.trace)

  constructor(private readonly limits: {[K in keyof typeof TRACE_LIMITS]: number} = TRACE_LIMITS) {}

  record(step: StepRecord): void {
    const entry: TraceStep = {path: step.path, type: step.type, label: clip(step.label, this.limits.maxLabelLength), duration_ms: 0}
    let truncated = false
    for (const key of ['input', 'output'] as const) {
      if (step[key] === undefined) continue
      const bounded = boundValue(step[key], this.limits.maxValueBytes)
      entry[key] = bounded.value
      truncated ||= bounded.truncated
    }
    if (step.error !== undefined) entry.error = clip(step.error, this.limits.maxErrorLength)
    entry.duration_ms = Math.max(0, Math.round(step.durationMs))
    if (truncated) entry.truncated = true
    // A step that ran fine may use the room but the reserve; the failing one (always the last) may use it.
    const budget = this.limits.maxTraceBytes - (entry.error === undefined ? this.limits.errorReserveBytes : 0)
    const full = jsonBytes(entry) + 1
    if (this.bytes + full <= budget) return this.add(entry, full)
    const bare: TraceStep = {...entry, truncated: true}
    delete bare.input
    delete bare.output
    const size = jsonBytes(bare) + 1
    if (this.bytes + size <= budget) return this.add(bare, size)
    this.trace.omitted_steps++
  }

  private add(entry: TraceStep, size: number): void {
    this.trace.steps.push(entry)
    this.bytes += size
  }

  result(): FlowTrace {
    return this.trace
  }
}
