import { BaseCommand } from '../cli/base-command.js'
import { type Result, shown } from '../render/result.js'

export default class Version extends BaseCommand<typeof Version> {
  static summary = 'Show the version of pay and of Node.js'
  static examples = ['<%= config.bin %> version', '<%= config.bin %> version --json']

  async run(): Promise<Result> {
    const { version, platform, arch } = this.config
    return shown.text(this.config.userAgent, { version, node: process.versions.node, platform, arch })
  }
}
