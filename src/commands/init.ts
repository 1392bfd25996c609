import {existsSync} from 'node:fs'
import {copyFile, cp, readdir, readFile, rename} from 'node:fs/promises'
import {join, resolve} from 'node:path'
import {Args, Flags} from '#oclif'
import {SvcCommand} from '../cli/base-command.js'
import {SvcError} from '../core/errors.js'
import {templatePath} from '../dev/project.js'
import {sourceFileOf} from '../engines/index.js'
import {PACKAGE_TEMPLATES} from '../paths.js'

export default class Init extends SvcCommand {
  static description = 'Create a workspace folder: one working example of each resource (prompt, db, app, dashboard, flow, connector)'
  static examples = ['<%= config.bin %> init my-workspace && cd my-workspace && svc push --data ../.svc --yes']
  static args = {dir: Args.string({description: 'folder to create or fill', default: '.'})}
  static flags = {force: Flags.boolean({description: 'overwrite files that already exist', default: false})}

  async run() {
    const {args, flags} = await this.parse(Init)
    const dir = resolve(args.dir)
    const source = join(PACKAGE_TEMPLATES, 'workspace')
    const entries = (await readdir(source)).map((e) => (e === 'gitignore' ? '.gitignore' : e))
    const clashes = entries.filter((e) => existsSync(join(dir, e)))
    if (clashes.length && !flags.force) {
      throw new SvcError('usage', 0, `${args.dir} already has ${clashes.join(', ')}`, undefined, 'use an empty folder, or --force to overwrite')
    }
    await cp(source, dir, {recursive: true, force: true})
    await rename(join(dir, 'gitignore'), join(dir, '.gitignore'))
    // The example app's source is the starter of its engine (`svc app create --template <engine>`).
    const hello = join(dir, 'apps', 'hello')
    const engine = String((JSON.parse(await readFile(join(hello, 'app.json'), 'utf8')) as {app_engine: unknown}).app_engine)
    await copyFile(templatePath(engine), join(hello, sourceFileOf(engine)))
    this.say(`Created a workspace in ${args.dir}: ${entries.join(', ')}`)
    this.say(`Next: svc push ${args.dir}   (shows what it will create, then asks)`)
    return {dir, created: entries}
  }
}
