import {Args} from '@oclif/core'
import {BackendCommand} from '../../cli/base-command.js'
import type {AppView} from '../../core/apps/validate.js'
import {describeApp} from '../../dev/app-flags.js'
import {projectOf, readProject, writeProject} from '../../dev/project.js'

export default class AppPush extends BackendCommand {
  static description = 'Send a folder\'s source to the backend (creates the app when svc-app.json has no id)'
  static args = {dir: Args.string({description: 'app folder', default: '.'})}

  async run() {
    const {args, flags} = await this.parse(AppPush)
    const {project, source} = await readProject(args.dir)
    const client = await this.client(flags)
    const body = {app: {name: project.name, app_engine: project.app_engine, css_engine: project.css_engine, source_code: source}}
    const app = project.id
      ? await client.call('updateApp', {params: {id: project.id}, body})
      : await client.call('createApp', {body})
    if (!project.id) await writeProject(args.dir, projectOf(app), source)
    for (const line of describeApp(app, client.backend.baseUrl)) this.say(line)
    return app
  }
}
