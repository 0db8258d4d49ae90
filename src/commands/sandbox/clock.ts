import { BaseCommand } from '../../cli/base-command.js'
import { jqFlag, sandboxGlobalFlags } from '../../cli/flags.js'
import { type Result, shown } from '../../render/result.js'
import { loadLocalStore } from '../../sandbox/index.js'
import type { EndpointName } from '../../shared/endpoints.js'
import { aheadText, CLOCK_VIEW } from '../../work/sandbox/store/view.js'

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
    const where = await this.context.sandboxTarget()
    let clock: Record<string, unknown>
    let place: string
    if (where.server) {
      clock = await where.api.send('sandboxClock')
      place = `the sandbox at ${where.target.baseUrl}`
    } else {
      const { clockIn } = await loadLocalStore()
      clock = clockIn(where.dir)
      place = `the local sandbox store ${where.dir}`
    }
    return [
      shown.record(clock, CLOCK_VIEW),
      shown.note(`Sandbox time is ${aheadText(clock.offset_seconds)} (${place}).`),
    ]
  }
}
