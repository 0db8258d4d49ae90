import path from 'node:path'
import { afterEach, describe, expect, test } from 'vitest'
import { formatAmount } from '../../../src/render/format.js'
import { listPackages } from '../../../src/sandbox/domain/business.js'
import { readSandboxKey } from '../../../src/shared/sandbox-key.js'
import { runCli, tempDir } from '../../helpers/cli.js'
import { linkCreateArgs } from '../../helpers/links.js'
import { closeTerminals, startTerminal } from '../../helpers/terminal.js'

/**
 * `pay sandbox start` as a person runs it, in a terminal of 80 columns: what it serves and where
 * its database is, a line per request as pay (here another process) uses it, and Ctrl-C.
 */

afterEach(closeTerminals)

const packageLines = (key: string) =>
  listPackages(key).map(
    (p) =>
      `  ${p._id}  ${p.name}  ${formatAmount(p.amount, p.currency)} ${p.frequency}  (business ${p.business_id})`,
  )

describe('pay sandbox start in a terminal', () => {
  test('at 80 columns: the banner, how to reach it on its own port, a line per request, and Ctrl-C; exit 0', async () => {
    const dir = tempDir('pay-sandbox-')
    // As a person runs it: PAY_SANDBOX_PORT unset, so the profile looks on 4010; --port 0 picks another.
    const term = await startTerminal(['sandbox', 'start', '--port', '0'], {
      env: { PAY_SANDBOX_DIR: dir, PAY_SANDBOX_PORT: undefined, NO_COLOR: '1' },
      width: 80,
    })
    const banner = await term.waitFor('Press Ctrl-C to stop.')
    const baseUrl = /Sandbox listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(banner)?.[1]
    expect(baseUrl).toBeDefined()
    const port = new URL(baseUrl!).port
    // What the banner says to do: the profile then finds this sandbox and trusts it, and the
    // payment_url it prints is this server's (no warning that nothing serves it).
    const followed = await runCli(['-p', 'sandbox', ...linkCreateArgs(), '--columns', 'payment_url'], {
      env: { PAY_SANDBOX_PORT: port, PAY_SANDBOX_DIR: dir },
    })
    expect(followed).toMatchObject({ code: 0, stderr: '' })
    expect(followed.stdout).toMatch(new RegExp(`^${baseUrl}/checkout/pay\\?id=[0-9a-f]{24}\n$`))
    // The key it made for its directory, which the profile sent above.
    const key = readSandboxKey(dir) as string
    const env = { PAY_API_KEY: key, PAY_BASE_URL: baseUrl }
    expect((await runCli(['links', 'list', '--json'], { env })).code).toBe(0)
    expect((await runCli(['links', 'get', 'nope'], { env })).code).toBe(5)
    await term.waitFor('GET /payment-links/nope 404')
    await term.press('C-c')
    expect(await term.exitCode()).toBe(0)
    const lines = (await term.screen()).trimEnd().split('\n')
    const times = lines.map((line) =>
      line.replace(/^\d\d:\d\d:\d\d /, 'TIME ').replace(/ \d+\.\d ms$/, ' MS'),
    )
    expect(times).toEqual([
      // A new directory: its key is made, and said (wrapped at 80 columns).
      'Made an API key for this sandbox directory, kept in',
      `${path.join(dir, 'sandbox.key')} (readable by you alone): \`pay -p sandbox\``,
      'sends it. The well-known sandbox key is served only when given by name.',
      `Sandbox listening on ${baseUrl}`,
      `Database: ${path.join(dir, 'store.db')}`,
      `Key: ${key} (this directory's own)`,
      'Packages (for `pay subs create --package-id`):',
      ...packageLines(key),
      'Signature key of its notifications (`pay sandbox webhooks list`):',
      expect.stringMatching(/^ {2}sig_sandbox_[0-9a-f]{48}$/),
      // The account made for the directory, to sign in with as the shop plugins do.
      "Account of the keys' businesses (`pay login --email`, the plugins' sign-in):",
      expect.stringMatching(/^ {2}merchant-[0-9a-f]{8}@sandbox\.pay\.example {2}[0-9a-f]{24}$/),
      `The service's base path works too: ${baseUrl}/api`,
      `pay -p sandbox looks for a sandbox on port 4010, not ${port}. To use this one:`,
      `  export PAY_SANDBOX_PORT=${port} PAY_SANDBOX_DIR=${dir}`,
      `or: pay -p sandbox --base-url ${baseUrl} …`,
      'Requests are logged below. Press Ctrl-C to stop.',
      // pay -p sandbox asks the sandbox to prove it is the user's own (its challenge is not
      // shown): once to find it, and again on the connection its request goes on.
      'TIME GET /_sandbox/health?challenge=[REDACTED] 200 MS',
      'TIME GET /_sandbox/health?challenge=[REDACTED] 200 MS',
      'TIME POST /payment-links 200 MS',
      'TIME GET /payment-links 200 MS',
      'TIME GET /payment-links/nope 404 MS',
      '^C',
      'Sandbox stopped after 5 requests.',
    ])
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(80)
  })
})
