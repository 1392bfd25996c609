import {Flags} from '#oclif'
import {adminTarget, requireData, type AdminTarget} from '../admin/local-admin.js'
import {SvcCommand} from './base-command.js'

/**
 * `svc admin …`: local operations on a data dir (docs/cli.md "Administration"). The target line
 * (`local: ./.svc`) goes to stderr like every command's; a remote profile makes them refuse.
 */
export abstract class AdminCommand extends SvcCommand {
  static baseFlags = {
    data: Flags.string({description: 'data dir (default: the current local profile\'s, else ./.svc)', env: 'SVC_DATA', helpGroup: 'TARGET'}),
    profile: Flags.string({description: 'saved local profile whose data dir to use', env: 'SVC_PROFILE', helpGroup: 'TARGET'}),
    'database-url': Flags.string({
      description: 'PostgreSQL database (postgres://…) instead of the data dir\'s SQLite file', env: 'SVC_DATABASE_URL', helpGroup: 'TARGET',
    }),
    sqlite: Flags.boolean({
      description: 'use the data dir\'s SQLite file even where servers use a database URL (the dir has database.json)', default: false, helpGroup: 'TARGET',
    }),
  }

  /** The data dir, after printing the target line; `existing` refuses a dir without svc data. */
  protected target(flags: {data?: string; profile?: string; 'database-url'?: string; sqlite?: boolean}, options: {existing: boolean}): AdminTarget {
    const target = adminTarget(flags)
    this.note(target.description)
    if (options.existing) requireData(target)
    return target
  }
}
