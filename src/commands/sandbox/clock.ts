import { BaseCommand } from '../../cli/base-command.js'
import { jqFlag, sandboxGlobalFlags } from '../../cli/flags.js'
import { type Result, shown } from '../../render/result.js'
import type { EndpointName } from '../../shared/endpoints.js'
import { readClock } from '../../work/sandbox/store/clock.js'
import { CLOCK_VIEW, clockText } from '../../work/sandbox/store/view.js'

export default class SandboxClock extends BaseCommand<typeof SandboxClock> {
  static calls: readonly EndpointName[] = ['sandboxClock']
  static summary = "Show the sandbox clock's time; `advance` or `set` moves it"
  static description =
    'Sandbox time is real time plus an offset kept in the sandbox database, shared by its businesses; every ' +
    'timestamp the sandbox writes follows it, and subscriptions are charged as it passes their dates. Move it ' +
    'with `pay sandbox clock advance` and `set`; `pay sandbox reset` brings it back to real time. Read through ' +
    "the sandbox serving the profile's base URL when one runs (--profile, else $PAY_PROFILE, else the built-in " +
    '"sandbox" profile; --base-url), otherwise from the local store ($PAY_SANDBOX_DIR). --json: ' +
    '{"now": ISO, "offset_seconds": N}.'

  static examples = ['<%= config.bin %> sandbox clock', '<%= config.bin %> sandbox clock --json']

  static baseFlags = sandboxGlobalFlags
  static flags = { ...jqFlag }

  async run(): Promise<Result> {
    const read = await readClock(this.context)
    return [shown.record(read.clock, CLOCK_VIEW), shown.note(clockText(read))]
  }
}
