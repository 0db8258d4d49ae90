import { Flags } from '@oclif/core'
import { isDecimal } from '../agent/caps.js'
import { serveMcp } from '../agent/server.js'
import { toolEndpoints } from '../agent/tools.js'
import { BaseCommand } from '../cli/base-command.js'
import type { Result } from '../render/result.js'
import { SANDBOX_ACTIONS } from '../work/sandbox/agent-actions.js'

export default class Mcp extends BaseCommand<typeof Mcp> {
  static summary = 'Serve pay to an AI assistant: an MCP server on stdio'
  static description =
    'Runs a Model Context Protocol server on stdin and stdout for an MCP client (an AI assistant): a tool per ' +
    'endpoint (links_list, links_get, links_create, links_update, links_delete, subs_list, subs_get, ' +
    'subs_create, subs_update, subs_cancel, subs_delete, token_create; on the sandbox profile sandbox_pay, ' +
    'sandbox_clock_advance, sandbox_requests). Read-only unless --allow-writes. Deletes and cancels ask the person ' +
    'through the client where it offers MCP elicitation; elsewhere they answer a plan and a confirm string first ' +
    'and act only when called again with it (--require-person refuses them there). The profile is chosen as for ' +
    'every command (--profile, $PAY_PROFILE, the current one), else the built-in sandbox; stderr says which, ' +
    'and one line per call. Changes are journaled (`pay history`). Ends when the client closes stdin. ' +
    'docs/agents.md shows how to add it to a client.'

  static examples = [
    '<%= config.bin %> mcp',
    '<%= config.bin %> mcp -p sandbox --allow-writes',
    '<%= config.bin %> mcp -p live --allow-writes --require-person --max-items 20 --max-amount 500',
  ]

  static calls = toolEndpoints()
  static sandboxWhenNone = true
  static changesState = true

  static flags = {
    'allow-writes': Flags.boolean({
      description: 'Let the tools change things (create, update, delete, cancel); without it they only read.',
    }),
    'require-person': Flags.boolean({
      description:
        'Refuse deletes and cancels on a client that cannot ask the person (no MCP elicitation), where the model sees the confirm string.',
    }),
    'max-items': Flags.integer({
      description: 'Refuse a delete or cancel of more than N ids in one call, or in all in this session.',
      min: 1,
    }),
    'max-amount': Flags.string({
      description:
        'Refuse a payment link above this amount, and a delete or cancel whose records add up to more in any one currency (in one call, or with those before in this session).',
      parse: async (input) => {
        if (!isDecimal(input.trim()))
          throw new Error(`Expected an amount like 500 or 99.90 but received: ${input}`)
        return input.trim()
      },
    }),
  }

  async run(): Promise<Result> {
    const { flags } = this
    const caps = { maxItems: flags['max-items'], maxAmount: flags['max-amount'] }
    await serveMcp(
      {
        allowWrites: flags['allow-writes'],
        requirePerson: flags['require-person'],
        caps,
        version: this.config.version,
        sandbox: SANDBOX_ACTIONS,
      },
      this.context,
    )
    return undefined
  }
}
