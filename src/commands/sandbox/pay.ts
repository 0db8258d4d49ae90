import { BaseCommand } from '../../cli/base-command.js'
import { outputFlags, sandboxGlobalFlags } from '../../cli/flags.js'
import { idArg } from '../../cli/id-arg.js'
import { PayError } from '../../errors.js'
import { LINK_VIEW } from '../../resources/links.js'

export default class SandboxPay extends BaseCommand<typeof SandboxPay> {
  static summary = 'Pay a sandbox payment link as the customer would'
  static description =
    'Marks the link paid (paid becomes true, updated_at moves; paying twice changes nothing) and prints it. ' +
    "When a sandbox server answers at the profile's base URL (--profile, else $PAY_PROFILE, else the built-in " +
    '"sandbox" profile; --base-url) and proves it is yours (it keeps its store in $PAY_SANDBOX_DIR), a link of ' +
    "the key's business is paid through it, so an app using that server sees the change; otherwise, for the " +
    'built-in profile, in the local sandbox store ($PAY_SANDBOX_DIR). stderr says which.'

  static examples = [
    '<%= config.bin %> sandbox pay 65a1f0c2e4b0a1b2c3d4e5f6',
    '<%= config.bin %> sandbox pay 65a1f0c2e4b0a1b2c3d4e5f6 --base-url http://127.0.0.1:4011',
  ]

  static args = {
    id: idArg('Payment link id (_id), or its payment URL (…?id=ID).'),
  }

  static baseFlags = sandboxGlobalFlags
  static flags = { ...outputFlags }

  async run(): Promise<void> {
    const id = this.args.id
    const where = await this.sandboxTarget()
    let link: Record<string, unknown> | undefined
    let paidBefore = false
    if (where.server) {
      // Looked at first, so that paying a paid link says so (paying it again changes nothing).
      paidBefore = await where.api.getLink(id).then(
        (before) => before.paid === true,
        () => false,
      )
      try {
        link = await where.api.sandboxPay(id)
      } catch (error) {
        if (error instanceof PayError && error.kind === 'not_found') {
          throw new PayError(`No payment link ${id} in the sandbox at ${where.target.baseUrl}.`, {
            kind: 'not_found',
            status: error.status,
          })
        }
        throw error
      }
      if (!paidBefore) this.out.note(`Paid through the sandbox at ${where.target.baseUrl}.`)
    } else {
      const { markLinkPaid } = await import('../../sandbox/server.js')
      paidBefore = await paidInStore(where.dir, id)
      link = markLinkPaid(where.dir, id)
      if (!link) {
        throw new PayError(`No payment link ${id} in the local sandbox store ${where.dir}.`, {
          kind: 'not_found',
          hint: `No sandbox is running at ${where.baseUrl}; the local store was searched.`,
        })
      }
      if (!paidBefore) {
        this.out.note(
          `Paid in the local sandbox store ${where.dir} (no sandbox is running at ${where.baseUrl}).`,
        )
      }
    }
    if (paidBefore) this.out.note(`Payment link ${id} was already paid: nothing changed.`)
    this.out.record(link, LINK_VIEW)
  }
}

/** Whether the link is paid already in the local store (no server); false when it is not there. */
async function paidInStore(dir: string, id: string): Promise<boolean> {
  const { SandboxStore } = await import('../../sandbox/store.js')
  const store = new SandboxStore(dir)
  try {
    return store.findLink(id)?.paid === true
  } finally {
    store.close()
  }
}
