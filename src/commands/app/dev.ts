import {Args, Flags} from '#oclif'
import {BackendCommand} from '../../cli/base-command.js'

export default class AppDev extends BackendCommand {
  static description = 'Develop an app folder with live reload (Vite HMR) in the same page as /a/; --push saves to the backend'
  static examples = ['<%= config.bin %> app dev ./counter --push', '<%= config.bin %> app dev . --port 0 --url http://localhost:4000 --token T']
  static args = {dir: Args.string({description: 'app folder (app.json + source, as svc app pull writes it)', default: '.'})}
  static flags = {
    port: Flags.integer({description: 'port (0 picks a free one)', default: 5173, min: 0, max: 65535}),
    host: Flags.string({description: 'interface to listen on', default: '127.0.0.1'}),
    push: Flags.boolean({description: 'send the source to the backend on save (debounced)', default: false}),
  }

  /** Runs until SIGINT/SIGTERM. With `--json`, stdout is one JSON object per line: `ready` (with the URL), then `log`. */
  async run(): Promise<void> {
    const {args, flags} = await this.parse(AppDev)
    const client = await this.client(flags)
    const {startDevServer} = await import('../../dev/server.js')
    const event = (e: Record<string, unknown>) => process.stdout.write(JSON.stringify(e) + '\n')
    const log = this.jsonEnabled() ? (message: string) => event({event: 'log', message}) : (line: string) => process.stdout.write(line + '\n')
    const server = await startDevServer({dir: args.dir, backend: client.backend, port: flags.port, host: flags.host, push: flags.push, log})
    if (this.jsonEnabled()) event({event: 'ready', url: server.url})
    else log(`Dev server: ${server.url}`)
    await new Promise<void>((done) => {
      const stop = () => server.close().then(done, done)
      process.once('SIGINT', stop)
      process.once('SIGTERM', stop)
    })
  }
}
