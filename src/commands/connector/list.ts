import {BackendCommand} from '../../cli/base-command.js'
import {table} from '../../cli/table.js'
import type {ConnectorMethod} from '../../core/flows/connector.js'
import type {Resource} from '../../core/flows/resources.js'

export default class ConnectorList extends BackendCommand {
  static description = 'List the custom connectors of the account (secrets are never shown)'
  static examples = ['<%= config.bin %> connector list', '<%= config.bin %> connector list --json']

  async run() {
    const {flags} = await this.parse(ConnectorList)
    const connectors = await (await this.client(flags)).call('listResources', {query: {kind: 'svc/custom_connector'}})
    const methods = (c: Resource) => ((c.fields.methods ?? []) as ConnectorMethod[]).map((m) => `${m.name}${m.public ? ' (public)' : ''}`).join(', ')
    this.say(connectors.length
      ? table(['id', 'code', 'name', 'url', 'secret', 'methods'], connectors.map((c) => [c.id, c.code, c.name, c.url, c.has_secret_token ? 'set' : '-', methods(c)]))
      : 'No connectors.')
    return connectors
  }
}
