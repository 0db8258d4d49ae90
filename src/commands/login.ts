import { Flags } from '@oclif/core'
import { BaseCommand } from '../cli/base-command.js'
import { needs } from '../cli/flags.js'
import { type Result, shown } from '../render/result.js'
import type { EndpointName } from '../shared/endpoints.js'
import { loginWithEmail } from '../work/login/email.js'
import { login, loginWords } from '../work/login/login.js'

export default class Login extends BaseCommand<typeof Login> {
  static calls: readonly EndpointName[] = ['listLinks', 'signIn', 'approvedBusinesses']
  static summary = 'Store an API key as a profile, or sign in to an account and store its business'
  /** It stores a profile and its key (pay's own state). */
  static changesState = true
  static description =
    'Asks for the API key (masked) on a terminal, or reads it from stdin with --with-key. The key is ' +
    'checked with one GET request unless --no-verify, then stored in the system keychain (macOS ' +
    'Keychain, Windows Credential Manager, the Secret Service on Linux); the config file records ' +
    'only that it is there. With no keychain (or one that does not answer within 3 seconds) the key ' +
    'goes to the config file (mode 0600), and pay says so; PAY_KEYCHAIN=0 makes every login do that ' +
    '(for CI); --insecure-storage puts it there on purpose, with no warning. The profile becomes the ' +
    'current one. Logging in again to a profile moves its key to where this login stores it. No flag ' +
    'takes the key itself, so it never lands in shell history.\n\n' +
    "With --email, pay signs in to the account as the service's shop plugins do (the password asked masked, " +
    'or read from stdin with --password-stdin), lists its approved businesses and takes one (--business ID, ' +
    "the only one, or asked): it stores that business's API key as above, its signature key (`pay webhooks " +
    'verify`), business and integration, and the access token (`pay businesses`, `pay webhooks`), kept where ' +
    'the key goes and never shown. When the token has expired, sign in again.'

  static examples = [
    '<%= config.bin %> login --base-url https://api.pay.example',
    '<%= config.bin %> login --profile live --base-url https://api.pay.example',
    '<%= config.bin %> login --profile live --insecure-storage',
    'printf %s "$PAY_KEY" | <%= config.bin %> login --profile ci --base-url https://api.pay.example --with-key',
    '<%= config.bin %> login --email merchant@example.com --profile shop --base-url https://api.pay.example/api',
    'printf %s "$PASSWORD" | <%= config.bin %> login --email merchant@example.com --password-stdin --business 12',
  ]

  static flags = {
    'with-key': Flags.boolean({ description: 'Read the API key from stdin (for CI).', exclusive: ['email'] }),
    email: Flags.string({ description: "Sign in to the service's account with this e-mail address." }),
    'password-stdin': Flags.boolean({
      description: 'With --email: read the password from stdin.',
      ...needs('email'),
    }),
    business: Flags.string({
      description: 'With --email: the id of the business to store.',
      ...needs('email'),
    }),
    'insecure-storage': Flags.boolean({
      description: 'Store the key in plain text in the config file (mode 0600), not in the system keychain.',
    }),
    verify: Flags.boolean({ description: 'Check the key with a GET first.', allowNo: true, default: true }),
  }

  async run(): Promise<Result> {
    const flags = this.flags
    const common = {
      name: flags.profile ?? 'default',
      baseUrl: flags['base-url'],
      insecureStorage: flags['insecure-storage'],
      verify: flags.verify,
    }
    const outcome =
      flags.email === undefined
        ? await login({ ...common, withKey: flags['with-key'] }, this.context)
        : await loginWithEmail(
            {
              ...common,
              email: flags.email,
              passwordStdin: flags['password-stdin'],
              business: flags.business,
            },
            this.context,
          )
    const { notices, warnings, said } = loginWords(outcome)
    return [...notices.map(shown.notice), ...warnings.map(shown.warn), shown.message(said, outcome.summary)]
  }
}
