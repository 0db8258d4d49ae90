import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PayError } from '../../../src/errors.js'
import { shown as show } from '../../../src/render/result.js'
import { CommandContext, type ContextOptions } from '../../../src/runtime/run-context.js'
import { sendTo } from '../../../src/work/common/send.js'
import { createLink } from '../../../src/work/links/create.js'
import { listLinks } from '../../../src/work/links/list.js'
import { LINK_VIEW } from '../../../src/work/links/view.js'
import { tempDir } from '../../helpers/cli.js'
import { TestIO } from '../../helpers/io.js'
import { startTestSandbox, type TestSandbox, VALID_LINK } from '../../helpers/sandbox.js'

/**
 * The run context (src/runtime/context.ts) and the plain functions that take it: called here as
 * `pay mcp` will call them, with no command and no command line, a context made by hand.
 */

let sandbox: TestSandbox
beforeAll(async () => {
  sandbox = await startTestSandbox()
})
afterAll(() => sandbox?.close())

/** A context on a TestIO, in an environment of its own that names the test sandbox. */
async function contextFor(options: Partial<ContextOptions> = {}) {
  const io = new TestIO()
  const env = { ...sandbox.env, PAY_CONFIG_DIR: tempDir('pay-config-'), PAY_JOURNAL: '0', ...options.env }
  const context = await CommandContext.create({
    command: 'pay test',
    userAgent: 'pay/test',
    io,
    ...options,
    env,
  })
  return { io, context }
}

describe('a plain function with a context of its own', () => {
  it('creates and shows a link: the result printed in the mode the context asks, the server holds it', async () => {
    const { io, context } = await contextFor({ output: { json: true } })
    await context.show(show.record(await createLink({ fields: { ...VALID_LINK } }, context), LINK_VIEW))
    await context.close()
    const link = JSON.parse(io.stdout.text)
    expect(io.stderr.text).toBe('')
    expect(link).toMatchObject({ ...VALID_LINK, amount: 25.5, paid: false })
    expect((await sandbox.request('GET', `/payment-links/${link._id}`)).body.data.title).toBe(
      VALID_LINK.title,
    )

    const shown = await contextFor({ output: { columns: '_id,title' } })
    await shown.context.show(
      show.record(await sendTo('getLink', { id: String(link._id) }, shown.context), LINK_VIEW),
    )
    expect(shown.io.stdout.text).toBe(`${link._id}\t${VALID_LINK.title}\n`)
  })

  it('reads the environment it was given: PAY_API_KEY there, and the list scope from its options', async () => {
    const { io, context } = await contextFor({ env: { PAY_API_KEY: 'sk_test_nobody_knows_this_1' } })
    // The list is read as it is printed: the request goes out then.
    const refused = await listLinks({}, context)
      .then((found) => context.show(show.list(found.batches, LINK_VIEW, found.outcome)))
      .then(
        () => undefined,
        (error: unknown) => error,
      )
    expect(refused).toBeInstanceOf(PayError)
    expect((refused as PayError).exitCode).toBe(4)
    expect(io.stdout.text).toBe('')
    const scoped = await contextFor({ list: { limit: 1 }, output: { quiet: true } })
    const found = await listLinks({}, scoped.context)
    await scoped.context.show(show.list(found.batches, LINK_VIEW, found.outcome))
    expect(scoped.io.stdout.text.trim().split('\n')).toHaveLength(1)
    expect(scoped.context.listScope).toEqual({ all: false, limit: 1, limitGiven: true, takesAll: false })
  })

  it('builds the API client once, on first use', async () => {
    const { context } = await contextFor()
    const [first, second] = await Promise.all([context.api(), context.api()])
    expect(second).toBe(first)
    expect(first.target).toEqual({ profile: '(environment)', baseUrl: sandbox.baseUrl })
    expect(context.now()).toBeGreaterThan(0)
    const fixed = await contextFor({ now: () => 1234 })
    expect(fixed.context.now()).toBe(1234)
  })
})
