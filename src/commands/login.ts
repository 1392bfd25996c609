import {Args, Flags} from '#oclif'
import {Client} from '../client/backend.js'
import {saveProfile} from '../client/profiles.js'
import {resolveBackend} from '../client/resolve.js'
import {interactive} from '../cli/read-input.js'
import {profileName} from '../cli/args.js'
import {SvcCommand} from '../cli/base-command.js'
import {SvcError} from '../core/errors.js'

export default class Login extends SvcCommand {
  static description = 'Save a backend under a profile name: a server URL and token, or a local data dir'
  static examples = [
    '<%= config.bin %> login --url https://svc.example.com --token $TOKEN',
    '<%= config.bin %> login local --data ./.svc --as alice',
  ]
  static args = {name: Args.string({description: 'profile name (default: "default")'})}
  static flags = {
    name: Flags.string({description: 'the same as the NAME argument (the older spelling)'}),
    url: Flags.string({description: 'server URL', env: 'SVC_URL', exclusive: ['data']}),
    token: Flags.string({description: 'API token (asked for on a terminal when missing)', env: 'SVC_TOKEN'}),
    data: Flags.string({description: 'local data dir', env: 'SVC_DATA'}),
    as: Flags.string({description: 'login to act as on a local data dir', env: 'SVC_AS'}),
  }

  async run() {
    const {args, flags} = await this.parse(Login)
    const name = profileName(args.name, flags.name)
    if (!flags.url && !flags.data) throw new SvcError('usage', 0, 'give --url (with --token) or --data')
    let token = flags.token
    if (flags.url && !token) {
      if (!interactive()) throw new SvcError('usage', 0, '--token is required without a terminal', undefined, 'pass --token or set SVC_TOKEN')
      const {password} = await import('@inquirer/prompts')
      token = await password({message: 'API token'})
    }
    // Check the target before saving it.
    const backend = await resolveBackend({url: flags.url, token, data: flags.data, as: flags.as})
    try {
      const me = await new Client(backend).call('getMe')
      saveProfile(name, flags.url ? {url: flags.url, as: me.login} : {data: flags.data, as: flags.as}, flags.url ? token : undefined)
      this.say(`Saved profile "${name}": ${backend.description.replace(/ as .*$/, '')} as ${me.login}`)
      return {profile: name, target: flags.url ?? flags.data, login: me.login}
    } finally {
      await backend.close()
    }
  }
}
