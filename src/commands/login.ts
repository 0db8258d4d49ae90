import { Flags } from '@oclif/core'
import { checkBaseUrl } from '../api/transport.js'
import { BaseCommand } from '../cli/base-command.js'
import { sandboxProfile } from '../cli/sandbox-profile.js'
import { configDir, readConfig } from '../config/file.js'
import { PROFILE_NAME, redactKey, saveProfile, storedProfile } from '../config/profiles.js'
import { PayError, usageError } from '../errors.js'

export default class Login extends BaseCommand<typeof Login> {
  static summary = 'Store an API key as a profile'
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

  async run(): Promise<void> {
    const name = this.flags.profile ?? 'default'
    const builtIn = sandboxProfile().name
    if (name === builtIn) {
      throw usageError(
        `The ${builtIn} profile is built in and needs no login.`,
        `Use it with \`-p ${builtIn}\`.`,
      )
    }
    if (!PROFILE_NAME.test(name)) {
      throw usageError(
        `"${name}" cannot be a profile name.`,
        'Use up to 64 letters, digits, ".", "_" and "-", starting with a letter or digit.',
      )
    }
    const existing = storedProfile(readConfig(configDir()), name)
    const baseUrl =
      this.flags['base-url'] || process.env.PAY_BASE_URL || existing?.base_url || (await this.askBaseUrl())
    checkBaseUrl(baseUrl)
    const apiKey = await this.readKey()

    if (this.flags.verify) {
      try {
        await this.client(baseUrl, apiKey).linkPages().next()
      } catch (error) {
        if (error instanceof PayError && error.kind === 'auth') {
          throw new PayError(`${baseUrl} did not accept the key (${error.status}); nothing was saved.`, {
            kind: 'auth',
            status: error.status,
          })
        }
        throw error
      }
    }

    const saved = await saveProfile(name, {
      apiKey,
      baseUrl,
      insecureStorage: this.flags['insecure-storage'],
      keychain: this.keychainOptions(),
    })
    // Said in every output mode: a key in plain text is never a surprise. (--debug says why.)
    if (saved.noKeychain !== undefined)
      this.out.notice(`no system keychain: key stored in plain text in ${saved.file}`)
    if (saved.staleKeychainEntry) {
      const { account, reason } = saved.staleKeychainEntry
      this.out.warn(
        `The old key of profile "${name}" is still in the system keychain, which ${reason}; ` +
          `delete it there (service "pay", account "${account}").`,
      )
    }
    const summary = {
      profile: name,
      base_url: baseUrl,
      api_key: redactKey(apiKey),
      key_storage: saved.storage,
      current: true,
      verified: this.flags.verify,
    }
    const where = saved.storage === 'keychain' ? 'in the system keychain' : 'in the config file'
    if (this.flags.json) this.out.data(summary)
    else
      this.out.note(
        `Saved profile "${name}" (key ${summary.api_key} ${where}, ${baseUrl})${this.flags.verify ? ', key verified' : ''}. It is now the current profile.`,
      )
  }

  private async askBaseUrl(): Promise<string> {
    if (!this.io.canPrompt) {
      throw usageError(
        'Missing required flag: --base-url',
        'Give the service address with --base-url or PAY_BASE_URL.',
      )
    }
    const answer = await this.io.ask({
      message: 'Base URL of the service',
      validate: (value) => {
        try {
          checkBaseUrl(value.trim())
          return true
        } catch (error) {
          return (error as Error).message
        }
      },
    })
    return answer.trim()
  }

  private async readKey(): Promise<string> {
    let key: string
    if (this.flags['with-key']) {
      key = (await this.io.readStdin()).trim()
    } else if (this.io.canPrompt) {
      key = (await this.io.askSecret('API key')).trim()
    } else {
      throw usageError(
        'No API key given: not on a terminal, so pay cannot ask for it.',
        'Pipe it in with --with-key.',
      )
    }
    if (key === '') throw usageError('The API key is empty.')
    if (/\s/.test(key)) throw usageError('The API key contains whitespace; check what was pasted or piped.')
    return key
  }
}
