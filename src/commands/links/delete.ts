import { Args } from '@oclif/core'
import { deleteMany } from '../../bulk/delete.js'
import { BaseCommand } from '../../cli/base-command.js'
import { deleteFlags } from '../../cli/flags.js'
import { describeLink, LINK_VIEW } from '../../resources/links.js'

export default class LinksDelete extends BaseCommand<typeof LinksDelete> {
  static summary = 'Delete payment links'
  static description =
    'Shows the profile, base URL and ids, then asks before deleting. --yes skips the question; ' +
    'without a terminal and without --yes nothing is sent (exit 2).'

  static examples = [
    '<%= config.bin %> links delete 65a1f0c2e4b0a1b2c3d4e5f6',
    '<%= config.bin %> links delete 65a1f0c2e4b0a1b2c3d4e5f6 65a1f0c2e4b0a1b2c3d4e5f7 --yes',
    '<%= config.bin %> links delete 65a1f0c2e4b0a1b2c3d4e5f6 --dry-run',
  ]

  static aliases = ['links:rm']
  static strict = false
  static args = {
    id: Args.string({ description: 'Payment link id(s) (_id).', required: true, ignoreStdin: true }),
  }
  static flags = deleteFlags

  async run(): Promise<void> {
    const { api, target } = await this.api()
    await deleteMany({
      ids: this.positionals,
      view: LINK_VIEW,
      remove: (id) => api.deleteLink(id),
      lookUp: { fetch: (id) => api.getLink(id), describe: describeLink },
      ...this.workflow(target),
    })
  }
}
