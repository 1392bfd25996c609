import {loadProfiles} from '../../client/profiles.js'
import {SvcCommand} from '../../cli/base-command.js'
import {table} from '../../cli/table.js'

export default class ProfileList extends SvcCommand {
  static description = 'List saved profiles (tokens are never shown)'
  static examples = ['<%= config.bin %> profile list']

  async run() {
    const file = loadProfiles()
    const profiles = Object.entries(file.profiles).map(([name, p]) => ({
      name, current: name === file.current, target: p.url ? `remote: ${p.url}` : `local: ${p.data}`, as: p.as ?? null,
    }))
    this.say(profiles.length
      ? table(['', 'name', 'target', 'as'], profiles.map((p) => [p.current ? '*' : '', p.name, p.target, p.as]))
      : 'No profiles. Save one with: svc login')
    return profiles
  }
}
