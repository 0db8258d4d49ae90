import { describe, expect, it } from 'vitest'
import { startAccountSandbox } from '../../helpers/account.js'
import { runInProcess } from '../../helpers/in-process.js'

/** `pay webhooks remove ID`: shown, asked (--yes, --dry-run, refused off a terminal), then removed. */
describe.concurrent('pay webhooks remove', () => {
  it('refuses off a terminal without --yes (exit 2, nothing changed); asks on one; --yes removes', async ({
    onTestFinished,
  }) => {
    const s = await startAccountSandbox()
    onTestFinished(() => s.close())
    expect((await s.signIn()).code).toBe(0)
    const added = JSON.parse(
      (await runInProcess(['webhooks', 'add', 'https://shop.example/hook', '--json'], { env: s.env })).stdout,
    )
    const plan =
      'About to remove 1 webhook event:\n' +
      '  profile:  shop\n' +
      `  base URL: ${s.t.baseUrl}/api\n` +
      `  ${added._id}  payment.created → https://shop.example/hook  [enabled]\n`
    const refused = await runInProcess(['webhooks', 'remove', added._id], { env: s.env })
    expect(refused).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        plan +
        'Error: Refusing to remove without confirmation: there is no terminal to confirm on.\n' +
        'Pass --yes to confirm, or --dry-run to see the plan. Nothing was changed.\n',
    })
    expect((await runInProcess(['webhooks', 'remove', added._id, '--dry-run'], { env: s.env })).code).toBe(0)
    const declined = await runInProcess(['webhooks', 'rm', added._id], {
      env: s.env,
      terminal: true,
      answers: [false],
    })
    expect(declined.code).toBe(130)
    expect((await s.t.a.call('GET', '/_sandbox/webhooks')).json.data.endpoints).toHaveLength(1)
    const removed = await runInProcess(['webhooks', 'remove', added._id, '--yes', '--json'], { env: s.env })
    expect(removed.code).toBe(0)
    expect(JSON.parse(removed.stdout)).toMatchObject({ _id: added._id, url: 'https://shop.example/hook' })
    expect((await s.t.a.call('GET', '/_sandbox/webhooks')).json.data.endpoints).toEqual([])
    expect(await runInProcess(['webhooks', 'remove', added._id, '--yes'], { env: s.env })).toMatchObject({
      code: 5,
      stderr: `Error: The integration has no webhook event ${added._id}.\nSee \`pay webhooks list\`.\n`,
    })
  })
})
