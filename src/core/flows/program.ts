import {compileCondition, type CompiledCondition} from './condition.js'
import {isValidPath} from './data.js'
import {FLOW_LIMITS} from './limits.js'

/** A step of `fields.program` (decisions.md). */
export type Step = ConnectorStep | MutationStep | IfStep

export interface ConnectorStep {
  type: 'connector'
  /** Code of a `svc/custom_connector` resource. */
  connector: string
  /** Name of one of its `fields.methods`. */
  method: string
  /** Parameters, with `{path}` placeholders; path parameters of the method are taken from here. */
  params?: Record<string, unknown>
  /** Where the JSON answer is stored in the flow data (default: the method name). */
  into?: string
}

export interface MutationStep {
  type: 'mutation'
  /** Path → value; values may hold `{path}` placeholders. */
  set: Record<string, unknown>
}

export interface IfStep {
  type: 'if'
  condition: string
  then?: Step[]
  else?: Step[]
}

/** A program that passed validation, with its conditions compiled. */
export interface CheckedProgram {
  steps: Step[]
  conditions: Map<IfStep, CompiledCondition>
}

export const CODE_RE = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/
export const METHOD_NAME_RE = /^[A-Za-z0-9_][A-Za-z0-9_-]{0,63}$/

const COMMON_KEYS = ['type', 'name', 'description']
const KEYS: Record<Step['type'], string[]> = {
  connector: [...COMMON_KEYS, 'connector', 'method', 'params', 'into'],
  mutation: [...COMMON_KEYS, 'set'],
  if: [...COMMON_KEYS, 'condition', 'then', 'else'],
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v)

/**
 * Checks a program against the step shapes and limits. Returns messages (empty when valid),
 * each naming the step as `step 2.then.1` (1-based), and the compiled conditions.
 */
export function checkProgram(program: unknown): {errors: string[]; program?: CheckedProgram} {
  const errors: string[] = []
  const conditions = new Map<IfStep, CompiledCondition>()
  if (!Array.isArray(program)) return {errors: ['must be an array of steps']}
  let count = 0

  const walk = (steps: unknown[], where: string, depth: number) => {
    if (depth > FLOW_LIMITS.maxNesting) {
      errors.push(`${where}: nested deeper than ${FLOW_LIMITS.maxNesting} levels`)
      return
    }
    steps.forEach((raw, index) => {
      const at = `${where ? `${where}.` : 'step '}${index + 1}`
      count++
      if (!isPlainObject(raw)) return void errors.push(`${at}: must be an object`)
      const type = raw.type
      if (type !== 'connector' && type !== 'mutation' && type !== 'if') {
        return void errors.push(`${at}: type must be one of connector, mutation, if`)
      }
      for (const key of Object.keys(raw)) if (!KEYS[type].includes(key)) errors.push(`${at}: unknown key "${key}"`)
      if (type === 'connector') {
        if (typeof raw.connector !== 'string' || !CODE_RE.test(raw.connector)) errors.push(`${at}: connector must be a connector code`)
        if (typeof raw.method !== 'string' || !METHOD_NAME_RE.test(raw.method)) errors.push(`${at}: method must be a method name`)
        if (raw.params !== undefined && !isPlainObject(raw.params)) errors.push(`${at}: params must be an object`)
        if (raw.into !== undefined && !isValidPath(raw.into)) errors.push(`${at}: into must be a path like "json_object" or "a.b"`)
      } else if (type === 'mutation') {
        if (!isPlainObject(raw.set) || Object.keys(raw.set).length === 0) errors.push(`${at}: set must be a non-empty object`)
        else for (const key of Object.keys(raw.set)) if (!isValidPath(key)) errors.push(`${at}: "${key}" is not a valid path`)
      } else {
        if (typeof raw.condition !== 'string' || raw.condition.trim() === '') errors.push(`${at}: condition is required`)
        else if (raw.condition.length > FLOW_LIMITS.maxConditionLength) errors.push(`${at}: condition is longer than ${FLOW_LIMITS.maxConditionLength} characters`)
        else {
          try {
            conditions.set(raw as unknown as IfStep, compileCondition(raw.condition))
          } catch (error) {
            errors.push(`${at}: condition is invalid: ${(error as Error).message}`)
          }
        }
        for (const branch of ['then', 'else'] as const) {
          const value = raw[branch]
          if (value === undefined) continue
          if (!Array.isArray(value)) errors.push(`${at}: ${branch} must be an array of steps`)
          else walk(value, `${at}.${branch}`, depth + 1)
        }
      }
    })
  }
  walk(program, '', 1)
  if (count > FLOW_LIMITS.maxProgramSteps) errors.unshift(`has ${count} steps; at most ${FLOW_LIMITS.maxProgramSteps} are allowed`)
  if (errors.length) return {errors: errors.slice(0, 20)}
  return {errors, program: {steps: program as Step[], conditions}}
}
