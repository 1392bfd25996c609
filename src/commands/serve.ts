import {Flags} from '#oclif'
import {SvcCommand} from '../cli/base-command.js'
import {DEFAULT_DATA_DIR} from '../paths.js'

export default class Serve extends SvcCommand {
  static description = 'Run the self-hosted server (the full API) over a local data dir'
  static examples = ['<%= config.bin %> serve', '<%= config.bin %> serve --port 8080 --data ./data --system-prompts ./prompts']
  static flags = {
    port: Flags.integer({description: 'port (0 picks a free one)', default: 4000, env: 'SVC_PORT', min: 0, max: 65535}),
    host: Flags.string({description: 'interface to listen on', default: '127.0.0.1', env: 'SVC_HOST'}),
    data: Flags.string({description: 'data dir (holds svc.sqlite, or only the compile cache with --database-url)', default: DEFAULT_DATA_DIR, env: 'SVC_DATA'}),
    'database-url': Flags.string({
      description: 'PostgreSQL database (postgres://user:pass@host:5432/db): run N instances over one database; default: the SQLite file of --data',
      env: 'SVC_DATABASE_URL',
    }),
    sqlite: Flags.boolean({
      description: 'use the SQLite file of --data even in a data dir that servers use with a database URL (database.json)', default: false,
      exclusive: ['database-url'],
    }),
    'system-prompts': Flags.string({description: 'folder of system prompt files that win over the packaged ones', env: 'SVC_SYSTEM_PROMPTS'}),
    'trust-proxy': Flags.boolean({description: 'take the client address from X-Forwarded-For', default: false}),
    'public-url': Flags.string({description: 'base URL the platform is reached at (ACCOUNT_URL in prompts)', env: 'SVC_PUBLIC_URL'}),
    'apps-url': Flags.string({
      description: 'origin template of apps, one origin each: https://{code}.apps.example.com (needs --public-url); default http://{code}.localhost:PORT',
      env: 'SVC_APPS_URL',
    }),
    quiet: Flags.boolean({description: 'no request log', default: false}),
    'log-format': Flags.string({
      description: 'human: lines on stderr; json: one JSON object per line on stdout (one per request: time, request id, account, user or visitor, method, route, status, duration, bytes)',
      options: ['human', 'json'], default: 'human', env: 'SVC_LOG_FORMAT',
    }),
    'allow-connector-hosts': Flags.string({
      description: 'hosts, addresses or CIDR ranges connectors may reach although private or loopback (comma-separated; * for any)',
      env: 'SVC_ALLOW_CONNECTOR_HOSTS', multiple: true, delimiter: ',',
    }),
    quota: Flags.string({
      description: 'change a quota or limit: NAME=NUMBER (repeatable; comma-separated in the env var; names and defaults in docs/reliability.md)',
      env: 'SVC_QUOTA', multiple: true, delimiter: ',',
    }),
    'backup-dir': Flags.string({description: 'make scheduled backups into this folder (docs/backups.md)', env: 'SVC_BACKUP_DIR', helpGroup: 'BACKUPS'}),
    'backup-every': Flags.string({description: 'how often: 30m, 6h, 1d', default: '1d', env: 'SVC_BACKUP_EVERY', helpGroup: 'BACKUPS'}),
    'backup-keep': Flags.integer({description: 'archives kept in --backup-dir (the oldest are removed)', default: 7, min: 1, env: 'SVC_BACKUP_KEEP', helpGroup: 'BACKUPS'}),
    'backup-passphrase-file': Flags.string({
      description: 'file with the passphrase that encrypts secrets in scheduled archives (else SVC_BACKUP_PASSPHRASE; with neither, secrets are left out)', helpGroup: 'BACKUPS',
    }),
    'cron-seconds': Flags.boolean({description: 'allow crons to run every second (default: at most once a minute)', default: false}),
  }

  async run() {
    const {flags} = await this.parse(Serve)
    const {startServer} = await import('../http/serve.js')
    if (flags['apps-url']) {
      const {parseAppsUrl} = await import('../http/app-origin/hosts.js')
      try {
        parseAppsUrl(flags['apps-url'])
      } catch (error) {
        this.error((error as Error).message, {exit: 2})
      }
      if (!flags['public-url']) this.error('--apps-url needs --public-url (the main origin apps send visitors back to)', {exit: 2})
    }
    try {
      const {egressPolicy} = await import('../services/egress.js')
      egressPolicy(flags['allow-connector-hosts'])
    } catch (error) {
      this.error((error as Error).message, {exit: 2})
    }
    const {parseQuotas} = await import('../core/quotas.js')
    const databaseUrl = flags['database-url']?.trim() || undefined
    if (databaseUrl && !/^postgres(ql)?:\/\//i.test(databaseUrl)) this.error('--database-url must start with postgres:// or postgresql://', {exit: 2})
    const {serverLogger} = await import('../http/log-format.js')
    const logger = serverLogger(flags['log-format'] === 'json' ? 'json' : 'human')
    const log = logger.log
    const publicUrl = flags['public-url']
    if (publicUrl && flags['apps-url']) {
      const {appsUrlRisks} = await import('../http/app-origin/hosts.js')
      let risks
      try {
        risks = appsUrlRisks(publicUrl, flags['apps-url'], flags['trust-proxy'])
      } catch {
        this.error('--public-url is not a URL', {exit: 2})
      }
      if (risks.error) this.error(risks.error, {exit: 2})
      if (risks.warning) log(risks.warning)
    }
    if (publicUrl && !flags['apps-url'] && !isLoopbackUrl(publicUrl)) {
      log(`Warning: --public-url ${publicUrl} without --apps-url: hosted apps (/a/CODE) will send visitors to http://CODE.localhost:PORT, `
        + 'which only this machine reaches. Add --apps-url https://{code}.apps.example.com (a wildcard DNS name and certificate; docs/deploy.md)')
    }
    let backups: {dir: string; everyMs: number; keep: number; passphrase?: string} | undefined
    if (flags['backup-dir']) {
      const {parseEvery} = await import('../services/backup/schedule.js')
      const {readPassphrase} = await import('../cli/passphrase.js')
      try {
        backups = {dir: flags['backup-dir'], everyMs: parseEvery(flags['backup-every']), keep: flags['backup-keep'], passphrase: readPassphrase(flags['backup-passphrase-file'])}
      } catch (error) {
        this.error((error as Error).message, {exit: 2})
      }
    }
    const server = await startServer({
      backups,
      dataDir: flags.data,
      databaseUrl,
      sqlite: flags.sqlite,
      port: flags.port,
      host: flags.host,
      systemPromptsDir: flags['system-prompts'],
      trustProxy: flags['trust-proxy'],
      publicUrl: flags['public-url'],
      appsUrl: flags['apps-url'],
      log: flags.quiet ? undefined : log,
      requestLog: flags.quiet ? undefined : logger.request,
      allowConnectorHosts: flags['allow-connector-hosts'],
      quotas: {...(flags['cron-seconds'] ? {cron_min_interval_seconds: 1} : {}), ...parseQuotas(flags.quota ?? [])},
    })
    const account = await server.store.accounts.firstAccount()
    if (!account || !(await server.store.accounts.defaultUser(account.id))) {
      log(`No users yet. Create one: svc admin user add admin --role admin ${databaseUrl ? '--database-url URL' : `--data ${flags.data}`}`)
    }
    logger.listening(server.url)
    await new Promise<void>((done) => {
      const stop = (signal: string) => {
        log(`${signal}: finishing in-flight requests and closing the database`)
        server.close().then(done, done)
      }
      process.once('SIGINT', () => stop('SIGINT'))
      process.once('SIGTERM', () => stop('SIGTERM'))
    })
    return {url: server.url}
  }
}

/** A URL on this machine only (localhost, *.localhost, 127.0.0.0/8, ::1): apps on *.localhost work from there. */
function isLoopbackUrl(url: string): boolean {
  let host: string
  try {
    host = new URL(url).hostname.toLowerCase()
  } catch {
    return false
  }
  return host === 'localhost' || host.endsWith('.localhost') || /^127\.\d+\.\d+\.\d+$/.test(host) || host === '[::1]'
}
