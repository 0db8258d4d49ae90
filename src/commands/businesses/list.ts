import { BaseCommand } from '../../cli/base-command.js'
import { outputFlags } from '../../cli/flags.js'
import { type Result, shown } from '../../render/result.js'
import type { EndpointName } from '../../shared/endpoints.js'
import { listBusinesses } from '../../work/account/businesses.js'
import { BUSINESS_VIEW } from '../../work/account/view.js'

export default class BusinessesList extends BaseCommand<typeof BusinessesList> {
  static calls: readonly EndpointName[] = ['approvedBusinesses']
  static summary = "List the account's approved businesses"
  static description =
    'The businesses of the account the profile signed in to (`pay login --email`), each with its ' +
    'integration: its id, and its API key and signature key redacted. CHOSEN marks the one the profile ' +
    'stored. Sent with the access token; when it has expired, `pay login --email` again (exit 4). --json: ' +
    '[{"id", "name", "integration": {"id", "api_key", "signature_key", "webhook_events"}, "chosen"}].'

  static aliases = ['businesses:ls']

  static examples = ['<%= config.bin %> businesses list', '<%= config.bin %> businesses list -p shop --json']

  static flags = { ...outputFlags }

  async run(): Promise<Result> {
    return shown.list(await listBusinesses(this.context), BUSINESS_VIEW)
  }
}
