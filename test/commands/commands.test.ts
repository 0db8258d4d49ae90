import { describe, expect, it } from 'vitest'
import { commandMap } from '../helpers/endpoints.js'
import { runInProcess } from '../helpers/in-process.js'
import { COMMAND_IDS, MANIFEST, typed } from '../helpers/manifest.js'

/** `pay commands`: every command from the declarations of its help, and whether it changes state. */

interface Listed {
  id: string
  summary: string
  description: string
  aliases: string[]
  flags: {
    name: string
    char?: string
    type: string
    required: boolean
    default: unknown
    description: string
  }[]
  args: { name: string; required: boolean; description: string }[]
  examples: (string | { command: string })[]
  changes_state: boolean
}

describe('pay commands', () => {
  it('--json: one object per command of the manifest, as typed, with its flags, arguments and examples', async () => {
    const result = await runInProcess(['commands', '--json'])
    expect(result.code).toBe(0)
    expect(result.stderr).toBe('')
    const listed = JSON.parse(result.stdout) as Listed[]
    const ids = listed.map((command) => command.id)
    for (const id of COMMAND_IDS) expect(ids).toContain(typed(id))
    expect(ids).toEqual([...ids].sort())

    const create = listed.find((command) => command.id === 'links create') as Listed
    expect(create.summary).toBe(MANIFEST.commands['links:create'].summary)
    expect(create.flags.find((flag) => flag.name === 'amount')).toEqual({
      name: 'amount',
      type: 'option',
      required: false,
      default: null,
      description: 'Amount as a decimal, e.g. 25.50 (sent exactly as typed).',
    })
    expect(create.flags.find((flag) => flag.name === 'send-email')).toMatchObject({
      type: 'boolean',
      negatable: true,
    })
    expect(create.flags.find((flag) => flag.name === 'timeout')).toMatchObject({
      default: 30,
      env: 'PAY_TIMEOUT',
    })
    expect(create.flags.find((flag) => flag.name === 'profile')).toMatchObject({ char: 'p' })
    expect(create.examples[0]).toMatch(/^pay links create --email /)
    expect(create.changes_state).toBe(true)

    const get = listed.find((command) => command.id === 'links get') as Listed
    expect(get.args).toEqual([{ name: 'id', required: true, description: expect.any(String) }])
    expect(listed.find((command) => command.id === 'links list')?.aliases).toEqual(['links ls'])
  })

  it('changes_state: the commands that call an endpoint declared to change state, and those that change pay’s own', async () => {
    const listed = JSON.parse((await runInProcess(['commands', '--json'])).stdout) as Listed[]
    const changing = listed.filter((command) => command.changes_state).map((command) => command.id)
    const declared = [...commandMap()]
      .filter(([, endpoints]) => endpoints.some((endpoint) => endpoint.changesState))
      .map(([command]) => command)
    expect(changing).toEqual(
      [
        // login is declared: its --email signs in (a POST of the service's).
        ...declared,
        'api',
        'profiles remove',
        'profiles use',
        'sandbox snapshot delete',
        'sandbox snapshot restore',
        'sandbox snapshot save',
        'sandbox start',
      ].sort(),
    )
    // The sandbox's notifications: adding, removing, resending and listen's lease change it; showing does not.
    for (const changes of [
      'sandbox webhooks add',
      'sandbox webhooks remove',
      'sandbox webhooks resend',
      'sandbox listen',
    ])
      expect(changing).toContain(changes)
    for (const reading of [
      'links get',
      'links list',
      'subs list',
      'history',
      'commands',
      'version',
      'sandbox requests',
      'sandbox webhooks list',
      'sandbox webhooks deliveries',
    ])
      expect(changing).not.toContain(reading)
  })

  it('piped without --json: one command a line, tab-separated', async () => {
    const result = await runInProcess(['commands'])
    const line = result.stdout.split('\n').find((text) => text.startsWith('subs cancel\t'))
    expect(line).toBe(`subs cancel\ttrue\t${MANIFEST.commands['subs:cancel'].summary}`)
  })
})
