import {Command, Flags, type Interfaces} from '#oclif'
import {Client} from '../client/backend.js'
import type {Backend} from '../client/backend.js'
import {resolveBackend} from '../client/resolve.js'
import {withDoor} from '../client/door.js'
import {type CommandInfo, toSvcError} from './errors.js'
import {printError} from './exit-codes.js'

/** `svc … | head`: a closed pipe ends the command quietly (exit 0), as `cat` does. */
function exitOnClosedPipe(error: NodeJS.ErrnoException): void {
  if (error.code === 'EPIPE') process.exit(0)
  throw error
}

/** Shared by every command: `--json` prints the typed result; errors become a message + exit code. */
export abstract class SvcCommand extends Command {
  static enableJsonFlag = true

  async init(): Promise<void> {
    if (!process.stdout.listeners('error').includes(exitOnClosedPipe)) process.stdout.on('error', exitOnClosedPipe)
    await super.init()
  }

  /** Prints a line on stdout unless `--json` (the result is printed as JSON then). */
  protected say(line: string): void {
    if (!this.jsonEnabled()) this.log(line)
  }

  /** Prints a line on stderr unless `--json`. */
  protected note(line: string): void {
    if (!this.jsonEnabled()) process.stderr.write(line + '\n')
  }

  protected async catch(err: Error & {exitCode?: number; oclif?: {exit?: number}}): Promise<unknown> {
    const ctor = this.ctor as unknown as CommandInfo & {baseFlags?: CommandInfo['flags']}
    const command = {bin: this.config.bin, id: ctor.id, examples: ctor.examples, flags: {...ctor.baseFlags, ...ctor.flags}}
    process.exitCode = printError(toSvcError(err, command), this.jsonEnabled())
    return undefined
  }
}

/** Flags that pick the backend; each also reads its environment variable. */
export const targetFlags = {
  url: Flags.string({description: 'server URL (remote backend)', env: 'SVC_URL', helpGroup: 'TARGET'}),
  token: Flags.string({description: 'API token for --url', env: 'SVC_TOKEN', helpGroup: 'TARGET'}),
  data: Flags.string({description: 'local data dir (embedded backend)', env: 'SVC_DATA', helpGroup: 'TARGET'}),
  'database-url': Flags.string({
    description: 'PostgreSQL database of the embedded backend (postgres://…; default: the SQLite file of --data)', env: 'SVC_DATABASE_URL', helpGroup: 'TARGET',
  }),
  as: Flags.string({description: 'login to act as on the embedded backend (default: first admin)', env: 'SVC_AS', helpGroup: 'TARGET'}),
  profile: Flags.string({description: 'saved profile to use (svc login)', env: 'SVC_PROFILE', helpGroup: 'TARGET'}),
}

/** `--yes`: confirm a destructive command without asking (required when there is no terminal). */
export const yesFlag = Flags.boolean({char: 'y', description: 'do not ask for confirmation (required without a terminal)', default: false})

export type TargetFlagValues = Interfaces.InferredFlags<typeof targetFlags>

/** A command that talks to a backend (remote or embedded): `this.client()` gives typed calls. */
export abstract class BackendCommand extends SvcCommand {
  static baseFlags = {...targetFlags}

  private backend?: Backend

  protected async client(flags: TargetFlagValues): Promise<Client> {
    this.backend ??= withDoor(await resolveBackend(flags), 'cli')
    this.note(this.backend.description)
    // A server's warning about a write it accepted goes to stderr (with --json too: stdout stays the result).
    return new Client(this.backend, (warning) => process.stderr.write(`Warning: ${warning}\n`))
  }

  protected async finally(err: Error | undefined): Promise<unknown> {
    await this.backend?.close()
    return super.finally(err)
  }
}
