import { BaseCommand } from '../cli/base-command.js'

export default class Version extends BaseCommand<typeof Version> {
  static summary = 'Show the version of pay and of Node.js'
  static examples = ['<%= config.bin %> version', '<%= config.bin %> version --json']

  async run(): Promise<void> {
    const { version, platform, arch } = this.config
    if (this.flags.json) {
      this.out.data({ version, node: process.versions.node, platform, arch })
    } else {
      this.out.stdout.write(`${this.config.userAgent}\n`)
    }
  }
}
