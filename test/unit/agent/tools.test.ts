import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ACCOUNT_TOOL_ENDPOINTS, accountTools } from '../../../src/agent/account/tools.js'
import { Agent } from '../../../src/agent/server.js'
import { madeHere, serviceTools, toolEndpoints } from '../../../src/agent/tools.js'
import { CommandContext } from '../../../src/runtime/run-context.js'
import {
  ENDPOINT_LIST,
  ENDPOINTS,
  type Endpoint,
  type EndpointName,
  nameOf,
} from '../../../src/shared/endpoints.js'
import { field } from '../../../src/shared/fields.js'
import { SANDBOX_ACTIONS } from '../../../src/work/sandbox/agent-actions.js'
import { tempDir } from '../../helpers/cli.js'
import { envelope, type FakeServer, sendJson, startFakeServer } from '../../helpers/fake-server.js'
import { TestIO } from '../../helpers/io.js'
import { MANIFEST } from '../../helpers/manifest.js'

/**
 * pay mcp's tools come from the endpoint declarations (src/agent/tools.ts): a new endpoint is a
 * new tool, named after its resource and verb, its arguments its declared fields, its annotations from
 * what it does, and served by its declaration alone when its resource has no run function.
 */

const nameOfEndpoint = (endpoint: Endpoint) => nameOf(endpoint) as EndpointName

const REFUNDS = { answer: 'record', sandbox: false, noun: 'refund' } as const
const NEW_ENDPOINTS: Endpoint[] = [
  {
    ...REFUNDS,
    answer: 'list',
    method: 'GET',
    path: '/refunds',
    verb: 'list',
    changesState: false,
  },
  {
    ...REFUNDS,
    method: 'POST',
    path: '/refunds',
    verb: 'create',
    changesState: true,
    kind: 'create refund',
    body: [
      field('payment_link_id', 'string', true),
      field('amount', 'string', true),
      field('reason', 'string', false),
    ],
  },
  {
    ...REFUNDS,
    method: 'GET',
    path: '/refunds/{id}',
    verb: 'get',
    changesState: false,
  },
  {
    ...REFUNDS,
    answer: 'none',
    method: 'DELETE',
    path: '/refunds/{id}',
    verb: 'delete',
    changesState: true,
    kind: 'delete refund',
  },
]

let server: FakeServer
beforeAll(async () => {
  server = await startFakeServer((request, response) => {
    if (request.method === 'GET' && request.path === '/refunds')
      return sendJson(
        response,
        200,
        envelope({
          data: [
            { _id: 'rf1', amount: '5' },
            { _id: 'rf2', amount: '7' },
          ],
          next_page_url: null,
        }),
      )
    if (request.method === 'POST')
      return sendJson(response, 200, envelope({ _id: 'rf3', ...JSON.parse(request.body) }))
    if (request.method === 'GET')
      return sendJson(response, 200, envelope({ _id: 'rf1', amount: '5', status: 'done' }))
    return sendJson(response, 200, envelope({}))
  })
})
afterAll(() => server?.close())

describe('the tools of the declarations', () => {
  it('each endpoint of the service is a tool, presets too, named as the command that sends it', () => {
    const service = ENDPOINT_LIST.filter(madeHere)
    const tools = serviceTools()
    expect(tools).toHaveLength(service.length + service.flatMap((endpoint) => endpoint.presets ?? []).length)
    for (const tool of tools) {
      // `links_create` is `pay links create`, which declares the endpoint among those it calls.
      const command = MANIFEST.commands[tool.name.replace('_', ':')]
      const sent = service.filter((endpoint) =>
        command?.calls?.some((name: string) => ENDPOINTS[name as EndpointName] === endpoint),
      )
      expect([tool.name, sent.length > 0]).toEqual([tool.name, true])
    }
  })

  it('the account’s endpoints are the account’s tools, each named as the command that sends them; the sign-in none', () => {
    const tools = accountTools()
    expect(tools.map((tool) => tool.name).sort()).toEqual(Object.keys(ACCOUNT_TOOL_ENDPOINTS).sort())
    for (const tool of tools) {
      const command = MANIFEST.commands[tool.name.replace('_', ':')]
      const sent = ACCOUNT_TOOL_ENDPOINTS[
        tool.name as keyof typeof ACCOUNT_TOOL_ENDPOINTS
      ] as readonly string[]
      expect([tool.name, sent.every((name) => command?.calls?.includes(name))]).toEqual([tool.name, true])
      // A write needs --allow-writes: each tool that sends a change, and only those.
      expect([tool.name, tool.writes]).toEqual([
        tool.name,
        sent.some((name) => ENDPOINTS[name as EndpointName].changesState),
      ])
    }
    // Every endpoint of the service is a tool's, but the secret one: the sign-in takes a password.
    const sentByTools = new Set(toolEndpoints())
    expect(
      ENDPOINT_LIST.filter((e) => !e.sandbox && !sentByTools.has(nameOfEndpoint(e))).map((e) => e.path),
    ).toEqual([ENDPOINTS.signIn.path])
    expect([...serviceTools(), ...tools].some((tool) => /sign|access/.test(tool.name))).toBe(false)
  })

  it('a new declaration is a new tool: its fields, its annotations, and its request sent as declared', async () => {
    const tools = serviceTools([...ENDPOINT_LIST, ...NEW_ENDPOINTS])
    const byName = Object.fromEntries(tools.map((tool) => [tool.name, tool]))
    expect(Object.keys(byName)).toEqual(
      expect.arrayContaining(['refunds_list', 'refunds_create', 'refunds_get', 'refunds_delete']),
    )
    expect(byName.refunds_create.inputSchema).toEqual({
      type: 'object',
      properties: {
        payment_link_id: { type: 'string' },
        amount: { type: 'string' },
        reason: { type: 'string' },
        idempotency_key: expect.objectContaining({ type: 'string' }),
      },
      required: ['payment_link_id', 'amount'],
      additionalProperties: false,
    })
    expect(byName.refunds_create.annotations).toEqual({
      title: 'Create a refund',
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    })
    expect(byName.refunds_delete.annotations).toMatchObject({ destructiveHint: true, idempotentHint: true })
    expect(byName.refunds_list.annotations).toMatchObject({ readOnlyHint: true })
    expect(Object.keys(byName.refunds_list.inputSchema.properties ?? {})).toEqual(['cursor', 'limit'])

    const io = new TestIO()
    const context = await CommandContext.create({
      command: 'pay mcp',
      userAgent: 'pay/test',
      io,
      env: {
        PAY_API_KEY: 'sk_test_refunds',
        PAY_BASE_URL: server.baseUrl,
        PAY_CONFIG_DIR: tempDir('pay-config-'),
        PAY_JOURNAL: '0',
      },
    })
    const agent = new Agent(
      {
        allowWrites: true,
        caps: {},
        version: 'test',
        sandbox: SANDBOX_ACTIONS,
        endpoints: [...ENDPOINT_LIST, ...NEW_ENDPOINTS],
      },
      context,
      false,
    )
    const listed = await agent.call('refunds_list', {})
    expect(listed.structured).toEqual({
      items: [
        { _id: 'rf1', amount: '5' },
        { _id: 'rf2', amount: '7' },
      ],
    })
    const made = await agent.call('refunds_create', {
      payment_link_id: 'pl1',
      amount: '5',
      idempotency_key: 'refund-1',
    })
    expect(made.structured).toEqual({ _id: 'rf3', payment_link_id: 'pl1', amount: '5' })
    const plan = await agent.call('refunds_delete', { ids: ['rf1'] })
    expect(plan.structured.items).toEqual([{ id: 'rf1', found: true, amount: '5', status: 'done' }])
    expect(plan.structured.totals).toEqual([{ currency: null, amount: '5' }])
    const deleted = await agent.call('refunds_delete', { ids: ['rf1'], confirm: plan.structured.confirm })
    expect(deleted.structured.results).toEqual([{ id: 'rf1', ok: true, status: 'done', error: null }])
    await context.close()
    // The plan reads the record, and the confirm reads it again before the delete.
    expect(server.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
      'GET /refunds',
      'POST /refunds',
      'GET /refunds/rf1',
      'GET /refunds/rf1',
      'DELETE /refunds/rf1',
    ])
    expect(server.requests[1].headers['idempotency-key']).toBe('refund-1')
    expect(JSON.parse(server.requests[1].body)).toEqual({ payment_link_id: 'pl1', amount: '5' })
  })
})
