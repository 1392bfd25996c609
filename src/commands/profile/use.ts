import {Args} from '#oclif'
import {useProfile} from '../../client/profiles.js'
import {SvcCommand} from '../../cli/base-command.js'
import {SvcError} from '../../core/errors.js'

export default class ProfileUse extends SvcCommand {
  static description = 'Make a saved profile the current one'
  static examples = ['<%= config.bin %> profile use prod']
  static args = {name: Args.string({description: 'profile name', required: true})}

  async run() {
    const {args} = await this.parse(ProfileUse)
    if (!useProfile(args.name)) throw new SvcError('not_found', 404, `no profile "${args.name}"`, undefined, 'svc profile list')
    this.say(`Using profile "${args.name}"`)
    return {profile: args.name}
  }
}
