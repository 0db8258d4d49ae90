import { Flags } from '@oclif/core'
import { BaseCommand } from '../cli/base-command.js'
import { type Result, shown } from '../render/result.js'
import type { EndpointName } from '../shared/endpoints.js'
import { login, loginWords } from '../work/login/login.js'

export default class Login extends BaseCommand<typeof Login> {
  static calls: readonly EndpointName[] = ['listLinks']
  static summary = 'Store an API key as a profile'
  /** It stores a profile and its key (pay's own state). */
  static changesState = true
  static description =
    'Asks for the API key (masked) on a terminal, or reads it from stdin with --with-key. The key is ' +
    'checked with one GET request unless --no-verify, then stored in the system keychain (macOS ' +
    'Keychain, Windows Credential Manager, the Secret Service on Linux); the config file records ' +
    'only that it is there. With no keychain (or one that does not answer within 3 seconds) the key ' +
    'goes to the config file (mode 0600), and pay says so; PAY_KEYCHAIN=0 makes every login do that ' +
    '(for CI); --insecure-storage puts it there on purpose, with no warning. The profile becomes the ' +
    'current one. Logging in again to a profile moves its key ' +
    'to where this login stores it. No flag takes the key itself, so it never lands in shell history.'

  static examples = [
    '<%= config.bin %> login --base-url https://api.pay.example',
    '<%= config.bin %> login --profile live --base-url https://api.pay.example',
    '<%= config.bin %> login --profile live --insecure-storage',
    'printf %s "$PAY_KEY" | <%= config.bin %> login --profile ci --base-url https://api.pay.example --with-key',
  ]

  static flags = {
    'with-key': Flags.boolean({ description: 'Read the API key from stdin (for CI).' }),
    'insecure-storage': Flags.boolean({
      description: 'Store the key in plain text in the config file (mode 0600), not in the system keychain.',
    }),
    verify: Flags.boolean({
      description: 'Check the key with a GET before saving.',
      allowNo: true,
      default: true,
    }),
  }

  async run(): Promise<Result> {
    const request = {
      name: this.flags.profile ?? 'default',
      baseUrl: this.flags['base-url'],
      withKey: this.flags['with-key'],
      insecureStorage: this.flags['insecure-storage'],
      verify: this.flags.verify,
    }
    const outcome = await login(request, this.context)
    const { notices, warnings, said } = loginWords(outcome)
    return [...notices.map(shown.notice), ...warnings.map(shown.warn), shown.message(said, outcome.summary)]
  }
}
