import {readdir} from 'node:fs/promises'
import {join, resolve} from 'node:path'
import {Args, Flags} from '#oclif'
import {BackendCommand} from '../cli/base-command.js'
import type {Change} from '../core/workspace/plan.js'
import {FOLDERS} from '../workspace/folder.js'
import {applyPlan, dbRefusal, planFolder, recordSynced} from '../workspace/push.js'
import {workspaceDir} from '../cli/args.js'

const time = () => new Date().toTimeString().slice(0, 8)
const VERB = {create: 'created', update: 'changed', delete: 'deleted'} as const

export default class Dev extends BackendCommand {
  static description = 'Watch a workspace folder and apply every saved change to the backend; apps also get a live-reload dev server'
  static examples = ['<%= config.bin %> dev ./workspace --data ./.svc', '<%= config.bin %> dev --no-app-dev']
  static args = {dir: Args.string({description: 'workspace folder (default: the current folder)'})}
  static flags = {
    dir: Flags.string({char: 'd', description: 'workspace folder (the same as the DIR argument, kept for older scripts)'}),
    'app-dev': Flags.boolean({description: 'run `svc app dev` (Vite HMR) for each app folder', default: true, allowNo: true}),
  }

  async run() {
    const {args, flags} = await this.parse(Dev)
    const given = workspaceDir(args.dir, flags.dir)
    const client = await this.client(flags)
    const dir = resolve(given)
    const log = (line: string) => process.stdout.write(`${line}\n`)
    const sync = async () => {
      const plan = await planFolder(client, dir, {prune: false})
      // A db change that would drop data or leave records invalid is never applied on save: svc push --force does it.
      const refusal = dbRefusal(plan.changes)
      if (refusal) throw new Error(`${refusal.message} (svc push --force applies it)`)
      const applied: Change[] = []
      try {
        await applyPlan(client, dir, plan.changes, (c: Change) => {
          applied.push(c)
          log(`${time()} ${VERB[c.action]} ${c.kind} ${c.key}`)
        })
      } finally {
        // What dev applied is the folder's synced state, so a later push does not take it for a change made on the backend.
        await recordSynced(plan, applied)
      }
    }
    let queue = Promise.resolve()
    const enqueue = () => {
      queue = queue.then(sync).catch((error: Error) => {
        log(`${time()} not applied: ${error.message}`)
      })
      return queue
    }
    await enqueue()

    const closers: (() => Promise<void>)[] = []
    if (flags['app-dev']) {
      const {startDevServer} = await import('../dev/server.js')
      const apps = await readdir(join(dir, 'apps'), {withFileTypes: true}).catch(() => [])
      for (const app of apps.filter((e) => e.isDirectory())) {
        const server = await startDevServer({dir: join(dir, 'apps', app.name), backend: client.backend, port: 0, host: '127.0.0.1', push: false, log})
        log(`${time()} app ${app.name}: ${server.url}`)
        closers.push(() => server.close())
      }
    }
    const {watch} = await import('chokidar')
    const watcher = watch(FOLDERS.map((f) => join(dir, f)), {ignoreInitial: true, awaitWriteFinish: {stabilityThreshold: 60, pollInterval: 20}})
    let timer: NodeJS.Timeout | undefined
    watcher.on('all', (_event, path) => {
      if (path.endsWith('.tmp')) return
      clearTimeout(timer)
      timer = setTimeout(enqueue, 80)
    })
    await new Promise<void>((ready) => watcher.once('ready', () => ready()))
    log(`${time()} watching ${given} (${FOLDERS.join(', ')}); Ctrl-C to stop`)
    await new Promise<void>((done) => {
      const stop = () => {
        clearTimeout(timer)
        void Promise.all([watcher.close(), queue, ...closers.map((c) => c())]).finally(done)
      }
      process.once('SIGINT', stop)
      process.once('SIGTERM', stop)
    })
    return {dir}
  }
}
