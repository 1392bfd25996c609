/** Arguments several commands share. */
import {Args} from '#oclif'
import {SvcError} from '../core/errors.js'
import {parseJsonArg} from './read-input.js'

/**
 * A numeric id (a cron's, a record's): anything else is a usage error (exit 2) that names the
 * argument and says where the ids are listed — never a request the server would turn away.
 */
export function idArg(options: {name: string; description: string; listedBy: string}) {
  return Args.custom<number>({
    async parse(input) {
      if (/^\d+$/.test(input) && Number(input) > 0 && Number.isSafeInteger(Number(input))) return Number(input)
      throw new SvcError('usage', 0, `${options.name} must be a number (${options.description}), got "${input}"`, undefined,
        `the ids are listed by: ${options.listedBy}`)
    },
  })({description: options.description, required: true})
}

/** The workspace folder of `svc push|pull|dev [DIR]`: the argument, or `--dir` (the older spelling), else the current folder. */
export function workspaceDir(arg: string | undefined, flag: string | undefined): string {
  if (arg !== undefined && flag !== undefined && arg !== flag) {
    throw new SvcError('usage', 0, `two folders given: DIR "${arg}" and --dir "${flag}"`, undefined, 'give the folder once, as the DIR argument')
  }
  return arg ?? flag ?? '.'
}

/**
 * The JSON object a command sends: its DATA argument, or `--data-json` (the older spelling), else `{}`.
 * Not an object, or both given and different: a usage error.
 */
export function jsonObjectInput(arg: string | undefined, flag: string | undefined): Record<string, unknown> {
  if (arg !== undefined && flag !== undefined && arg !== flag) {
    throw new SvcError('usage', 0, 'two data objects given: the DATA argument and --data-json', undefined, 'give the JSON once, as the DATA argument')
  }
  const text = arg ?? flag
  if (text === undefined) return {}
  const where = arg !== undefined ? 'DATA' : '--data-json'
  const value = parseJsonArg(text, where)
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new SvcError('usage', 0, `${where} must be a JSON object`, undefined, `for example '{"city":"Oslo"}'`)
  return value as Record<string, unknown>
}

/** A profile name: the NAME argument, or `--name` (the older spelling), else `default`. */
export function profileName(arg: string | undefined, flag: string | undefined): string {
  if (arg !== undefined && flag !== undefined && arg !== flag) {
    throw new SvcError('usage', 0, `two profile names given: NAME "${arg}" and --name "${flag}"`, undefined, 'give the name once, as the NAME argument')
  }
  return arg ?? flag ?? 'default'
}
