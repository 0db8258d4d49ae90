import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SANDBOX_TOOL_ENDPOINTS } from '../../src/agent/sandbox-tools.js'
import { startAccountSandbox } from '../helpers/account.js'
import { tempDir } from '../helpers/cli.js'
import { serviceToolNames } from '../helpers/endpoints.js'
import { runInProcess } from '../helpers/in-process.js'
import { mcpInProcess } from '../helpers/mcp.js'
import { keysHidden, threeProfiles } from '../helpers/profiles.js'
import { startReceiver } from '../helpers/receiver.js'
import { startTestSandbox, type TestSandbox, VALID_LINK } from '../helpers/sandbox.js'

/**
 * `pay mcp` run in this process and driven by the MCP SDK's own client (test/helpers/mcp.ts):
 * which profile it serves, read-only unless --allow-writes, its flags, the sandbox's tools, and
 * a session given whole on stdin. test/e2e/agent/mcp.test.ts runs every tool over stdio.
 */

const CANARY = 'sk_live_mcp_in_process_canary_7f3a'
let sandbox: TestSandbox
beforeAll(async () => {
  sandbox = await startTestSandbox({ keys: [CANARY] })
})
afterAll(() => sandbox?.close())

// webhooks_verify sends nothing: it checks a notification with the profile's signature key.
const SERVICE_TOOLS = [...serviceToolNames(), 'webhooks_verify'].sort()
const ALL_TOOLS = [...SERVICE_TOOLS, ...Object.keys(SANDBOX_TOOL_ENDPOINTS)].sort()

describe('pay mcp in process', () => {
  it('with no profile set up serves the built-in sandbox, read-only, and says so on stderr', async () => {
    const mcp = await mcpInProcess([])
    const { tools } = await mcp.client.listTools()
    expect(tools.map((tool) => tool.name)).toEqual(ALL_TOOLS)
    expect(mcp.stderr()).toMatch(
      new RegExp(
        `^pay mcp: ${ALL_TOOLS.length} tools for profile "sandbox" at http://127\\.0\\.0\\.1:\\d+ \\(sandbox, in-process\\), read-only \\(--allow-writes allows changes\\)\\.\\n$`,
      ),
    )
    const refused = await mcp.call('links_create', { ...VALID_LINK })
    expect(refused.isError).toBe(true)
    expect(refused.structured.error).toMatchObject({ kind: 'usage', exit_code: 2 })
    expect(refused.text).toContain('--allow-writes')
    expect((await mcp.call('links_list')).structured).toEqual({ items: [] })
    const ended = await mcp.close()
    expect(ended.code).toBe(0)
    expect(ended.stderr).toContain(
      'pay mcp: links_create: Error (usage, exit 2): links_create changes what the service holds',
    )
  })

  it('chooses the profile as every command does: -p, else PAY_PROFILE, else the current one', async () => {
    const PAY_CONFIG_DIR = threeProfiles()
    const chosen = async (args: string[], env: Record<string, string>) => {
      const mcp = await mcpInProcess(args, { env: { PAY_CONFIG_DIR, ...env } })
      const said = mcp.stderr()
      const instructions = mcp.client.getInstructions() ?? ''
      const ended = await mcp.close()
      expect(keysHidden(ended.stderr + instructions)).toBe(true)
      return { said, instructions }
    }
    const current = await chosen([], {})
    expect(current.said).toBe(
      `pay mcp: ${SERVICE_TOOLS.length} tools for profile "mid" at https://mid.example, read-only (--allow-writes allows changes).\n`,
    )
    expect(current.instructions).toContain('as profile "mid" at https://mid.example.')
    expect((await chosen([], { PAY_PROFILE: 'zeta' })).said).toContain(
      'for profile "zeta" at https://zeta.example,',
    )
    expect((await chosen(['-p', 'alpha'], { PAY_PROFILE: 'zeta' })).said).toContain(
      'for profile "alpha" at https://alpha.example,',
    )
  })

  it('serves the profile of the environment: the service tools only, and the exit codes in its instructions', async () => {
    const mcp = await mcpInProcess([], { env: sandbox.env })
    expect((await mcp.client.listTools()).tools.map((tool) => tool.name)).toEqual(SERVICE_TOOLS)
    const instructions = mcp.client.getInstructions() ?? ''
    expect(instructions).toContain(`as profile "(environment)" at ${sandbox.baseUrl}.`)
    expect(instructions).toContain('  3 validation: rejected by validation')
    expect(instructions).toContain('  130 cancelled: a confirmation declined, Ctrl-C')
    expect(mcp.client.getServerVersion()).toMatchObject({ name: 'pay' })
    await mcp.close()
  })

  it('with --allow-writes acts on the sandbox profile: a link created, paid with sandbox_pay, the clock moved', async () => {
    const mcp = await mcpInProcess(['-p', 'sandbox', '--allow-writes'])
    expect(mcp.stderr()).toContain('changes allowed (--allow-writes).')
    const created = await mcp.call('links_create', { ...VALID_LINK, currency: 'usd', amount: '10' })
    expect(created.isError).toBe(false)
    expect(created.structured).toMatchObject({ currency: 'USD', amount: 10, paid: false })
    const paid = await mcp.call('sandbox_pay', { id: created.structured._id })
    expect(paid.structured).toMatchObject({
      outcome: 'paid',
      link: { _id: created.structured._id, paid: true },
    })
    const moved = await mcp.call('sandbox_clock_advance', { duration: '30d' })
    expect(moved.structured).toEqual({ now: expect.any(String), charges_created: 0 })
    expect((await mcp.call('sandbox_clock_advance', { duration: 'soon' })).structured.error).toMatchObject({
      kind: 'usage',
      message: '"soon" is not a duration.',
    })
    const requests = await mcp.call('sandbox_requests', { limit: 5 })
    expect(
      requests.structured.items.map(
        (entry: { method: string; path: string }) => `${entry.method} ${entry.path}`,
      ),
    ).toContain('POST /payment-links')
    await mcp.close()
  })

  it('sandbox_pay notifies the business’s webhook endpoints as sandbox pay does; what came of each attempt is said on stderr', async () => {
    const env = { PAY_SANDBOX_DIR: tempDir('pay-mcp-notify-'), PAY_SANDBOX_PORT: '1' }
    const answering = await startReceiver()
    try {
      expect((await runInProcess(['sandbox', 'webhooks', 'add', answering.url], { env })).code).toBe(0)
      const mcp = await mcpInProcess(['-p', 'sandbox', '--allow-writes'], { env })
      const link = (await mcp.call('links_create', { ...VALID_LINK })).structured
      const failed = await mcp.call('sandbox_pay', { id: link._id, outcome: 'failed' })
      expect(failed.structured).toMatchObject({ outcome: 'failed', link: { _id: link._id, paid: false } })
      const paid = await mcp.call('sandbox_pay', { id: link._id })
      expect(paid.structured).toMatchObject({ outcome: 'paid', link: { paid: true } })
      const ended = await mcp.close()
      expect(ended.code).toBe(0)
      // A failed payment and a paid one: two attempts, each notified, in order.
      expect(answering.notifications().map((n) => [n.data.payment_link_id, n.data.payment_status])).toEqual([
        [link._id, 3],
        [link._id, 1],
      ])
      expect(answering.notifications().map((n) => typeof n.data.hash)).toEqual(['string', 'string'])
      const said = ended.stderr.split('\n').filter((line) => line.startsWith('Notified '))
      expect(said).toEqual([
        `Notified ${answering.url}: answered 200.`,
        `Notified ${answering.url}: answered 200.`,
      ])
    } finally {
      await answering.close()
    }
  })

  it('the account’s tools: businesses and webhook events of the profile signed in, writes behind --allow-writes, removing behind a plan, a notification verified', async () => {
    const s = await startAccountSandbox()
    const answering = await startReceiver()
    try {
      expect((await s.signIn()).code).toBe(0)
      const readOnly = await mcpInProcess(['-p', 'shop'], { env: s.env })
      expect(
        (await readOnly.call('businesses_list')).structured.items.map((b: { chosen: boolean }) => b.chosen),
      ).toEqual([true, false])
      const refused = await readOnly.call('webhooks_add', { url: answering.url })
      expect(refused.structured.error).toMatchObject({ kind: 'usage', exit_code: 2 })
      await readOnly.close()

      const mcp = await mcpInProcess(['-p', 'shop', '--allow-writes'], { env: s.env })
      const added = (await mcp.call('webhooks_add', { url: answering.url })).structured
      expect(added).toMatchObject({ name: 'payment.created', url: answering.url, enabled: true })
      expect((await mcp.call('webhooks_disable', { id: added._id })).structured.enabled).toBe(false)
      expect((await mcp.call('webhooks_enable', { id: added._id })).structured.enabled).toBe(true)
      expect((await mcp.call('webhooks_list')).structured.items.map((e: { _id: string }) => e._id)).toEqual([
        added._id,
      ])
      // Notified through the sandbox: a pending payment, then checked as pay webhooks verify checks it.
      const link = (await s.t.a.call('POST', '/payment-links', { ...VALID_LINK })).json.data
      await s.t.a.call('POST', `/_sandbox/payment-links/${link._id}/pending`)
      for (let i = 0; i < 400 && answering.received.length === 0; i++)
        await new Promise((r) => setTimeout(r, 25))
      const verified = await mcp.call('webhooks_verify', { body: answering.received[0].body })
      expect(verified.structured).toMatchObject({ valid: true, profile: 'shop', data: { payment_status: 2 } })
      const forged = await mcp.call('webhooks_verify', {
        body: answering.received[0].body.replace('"payment_status":2', '"payment_status":1'),
      })
      expect(forged.structured.error).toMatchObject({ kind: 'validation', exit_code: 3 })
      // Removing: a plan first, nothing removed; then the confirm acts.
      const plan = await mcp.call('webhooks_remove', { ids: [added._id] })
      expect(plan.structured).toMatchObject({
        action: 'remove',
        items: [{ id: added._id, found: true, url: answering.url }],
      })
      expect((await s.t.a.call('GET', '/_sandbox/webhooks')).json.data.endpoints).toHaveLength(1)
      const done = await mcp.call('webhooks_remove', { ids: [added._id], confirm: plan.structured.confirm })
      expect(done.structured).toMatchObject({ done: 1, of: 1 })
      expect((await s.t.a.call('GET', '/_sandbox/webhooks')).json.data.endpoints).toEqual([])
      const tools = (await mcp.client.listTools()).tools.map((tool) => tool.name)
      expect(tools.filter((name) => /sign|password/.test(name))).toEqual([])
      await mcp.close()
    } finally {
      await answering.close()
      await s.close()
    }
  })

  it('sandbox_pay leaves a payment pending: the link unpaid', async () => {
    const mcp = await mcpInProcess(['-p', 'sandbox', '--allow-writes'], {
      env: { PAY_SANDBOX_DIR: tempDir('pay-mcp-pending-'), PAY_SANDBOX_PORT: '1' },
    })
    const link = (await mcp.call('links_create', { ...VALID_LINK })).structured
    const pending = await mcp.call('sandbox_pay', { id: link._id, outcome: 'pending' })
    expect(pending.structured).toMatchObject({ outcome: 'pending', link: { _id: link._id, paid: false } })
    await mcp.close()
  })

  it('retries and times out as every command does: a 503 retried, a hang cut at --timeout and said as unavailable (exit 6)', async () => {
    const link = (await sandbox.request('POST', '/payment-links', { ...VALID_LINK })).body.data
    const env = sandbox.env
    const set = ['sandbox', 'faults', 'set', 'GET /payment-links/* 503 x1', 'GET /subscriptions/* hang x9']
    expect((await runInProcess(set, { env })).code).toBe(0)
    try {
      const mcp = await mcpInProcess(['--timeout', '1'], { env })
      const got = await mcp.call('links_get', { id: link._id })
      expect(got.isError).toBe(false)
      expect(got.structured._id).toBe(link._id)
      const hung = await mcp.call('subs_get', { id: '0123456789abcdef01234567' })
      expect(hung.isError).toBe(true)
      expect(hung.structured.error).toMatchObject({ kind: 'unavailable', exit_code: 6 })
      expect(hung.structured.error.message).toBe(`No answer from ${sandbox.baseUrl} within 1 s.`)
      await mcp.close()
      const recorded = (await sandbox.request('GET', '/_sandbox/requests')).body.data as {
        method: string
        path: string
        status: number | null
      }[]
      const gets = recorded.filter((entry) => entry.path === `/payment-links/${link._id}`)
      expect(gets.map((entry) => entry.status)).toEqual([503, 200])
    } finally {
      await runInProcess(['sandbox', 'faults', 'clear'], { env })
    }
  })

  it('answers a whole session given on stdin, then ends with exit 0', async () => {
    const lines = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      {
        jsonrpc: '2.0',
        id: 2,
        method: 'tools/call',
        params: { name: 'links_list', arguments: { limit: 1 } },
      },
      {
        jsonrpc: '2.0',
        id: 3,
        method: 'tools/call',
        params: { name: 'links_get', arguments: { id: 'nope' } },
      },
    ]
    const result = await runInProcess(['mcp'], {
      env: sandbox.env,
      input: lines.map((line) => `${JSON.stringify(line)}\n`).join(''),
    })
    expect(result.code).toBe(0)
    const answers = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
    expect(answers.map((answer) => answer.id).sort()).toEqual([1, 2, 3])
    const missing = answers.find((answer) => answer.id === 3).result
    expect(missing.isError).toBe(true)
    expect(missing.structuredContent.error).toMatchObject({ kind: 'not_found', exit_code: 5, status: 404 })
  })

  it('refuses flags it cannot read before serving: exit 2, nothing on stdout', async () => {
    const result = await runInProcess(['mcp', '--max-amount', 'lots'], { env: sandbox.env })
    expect(result.code).toBe(2)
    expect(result.stdout).toBe('')
    expect(result.stderr).toContain('--max-amount: Expected an amount like 500 or 99.90 but received: lots')
  })
})
