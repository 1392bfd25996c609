import {Args, Flags} from '@oclif/core'
import {BackendCommand} from '../../cli/base-command.js'

export default class AppDev extends BackendCommand {
  static description = 'Develop an app folder with live reload (Vite HMR) in the same page as /a/; --push saves to the backend'
  static examples = ['<%= config.bin %> app dev ./counter --push', '<%= config.bin %> app dev . --port 0 --url http://localhost:4000 --token T']
  static args = {dir: Args.string({description: 'app folder (svc-app.json + source)', default: '.'})}
  static flags = {
    port: Flags.integer({description: 'port (0 picks a free one)', default: 5173, min: 0, max: 65535}),
    host: Flags.string({description: 'interface to listen on', default: '127.0.0.1'}),
    push: Flags.boolean({description: 'send the source to the backend on save (debounced)', default: false}),
  }

  async run() {
    const {args, flags} = await this.parse(AppDev)
    const client = await this.client(flags)
    const {startDevServer} = await import('../../dev/server.js')
    const log = (line: string) => process.stdout.write(line + '\n')
    const server = await startDevServer({dir: args.dir, backend: client.backend, port: flags.port, host: flags.host, push: flags.push, log})
    log(`Dev server: ${server.url}`)
    await new Promise<void>((done) => {
      const stop = () => server.close().then(done, done)
      process.once('SIGINT', stop)
      process.once('SIGTERM', stop)
    })
    return {url: server.url}
  }
}
