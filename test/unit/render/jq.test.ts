import { describe, expect, it } from 'vitest'
import type { PayError } from '../../../src/errors.js'
import { JqProgram } from '../../../src/render/jq.js'

/** The run's environment jq is given (pay's takes it from the run context): a key in it, never seen by jq. */
const ENV = { HOME: '/home/jane', PAY_API_KEY: 'sk_test_never_in_jq_env', PAY_TEST_EMAIL: 'jane@example.com' }

const run = async (expression: string, input: unknown) =>
  (await JqProgram.compile(expression, ENV)).run(JSON.stringify(input))

/** The usage error a call throws, as message and hint. */
async function failure(call: () => Promise<unknown>): Promise<{ kind: string; message: string }> {
  try {
    await call()
  } catch (error) {
    return { kind: (error as PayError).kind, message: (error as PayError).message }
  }
  throw new Error('expected an error')
}

describe('--jq runs jq itself', () => {
  it("is jq 1.7.1: 1.7's pick and 1.7.1's abs exist, 1.8's trim does not", async () => {
    expect((await run('pick(.a.b), (-1 | abs)', null)).text).toBe('{"a":{"b":null}}\n1\n')
    expect(await failure(() => JqProgram.compile('trim', ENV))).toEqual({
      kind: 'usage',
      message: "--jq 'trim': trim/0 is not defined",
    })
  })

  it('prints strings raw and other values as compact JSON, one per line', async () => {
    const result = await run('.[] | .title, .amount, .tags', [
      { title: 'Invoice 1', amount: 25.5, tags: ['a', 'b'] },
      { title: 'Tab\there\nand a new line', amount: 0.1, tags: { x: null } },
    ])
    expect(result).toEqual({
      text: 'Invoice 1\n25.5\n["a","b"]\nTab\there\nand a new line\n0.1\n{"x":null}\n',
      messages: '',
    })
  })

  it('shows control characters of raw strings in caret notation; JSON escapes them', async () => {
    const title = 'red \u001b[31m bell \u0007 c1 \u0085'
    expect((await run('.title, .', { title })).text).toBe(
      'red ^[[31m bell ^G c1 M-^E\n{"title":"red \\u001b[31m bell \\u0007 c1 \\u0085"}\n',
    )
  })

  it('runs over each value of a stream of JSON lines (--jsonl)', async () => {
    const program = await JqProgram.compile('select(.paid) | ._id', ENV)
    const lines = [
      { _id: 'a', paid: true },
      { _id: 'b', paid: false },
      { _id: 'c', paid: true },
    ].map((record) => JSON.stringify(record))
    expect(program.run(lines.join('\n')).text).toBe('a\nc\n')
  })

  it('keeps what jq printed before a runtime error, and names the expression in the error', async () => {
    const result = await run('.[] | 10 / .', [5, 2, 0])
    expect(result.text).toBe('2\n5\n')
    expect(result.error?.kind).toBe('usage')
    expect(result.error?.message).toBe(
      "--jq '.[] | 10 / .': number (10) and number (0) cannot be divided because the divisor is zero",
    )
    expect(result.error?.hint).toBe('pay runs jq 1.7.1: see https://jqlang.org/manual/v1.7/')
    // jq's exit status (5) never becomes pay's.
    expect(process.exitCode).toBeUndefined()
  })

  it('reports syntax errors and unknown names before running, in jq words', async () => {
    for (const [expression, message] of [
      ['.[', "--jq '.[': syntax error, unexpected end of file (Unix shell quoting issues?)"],
      ['.a | nosuch(1)', "--jq '.a | nosuch(1)': nosuch/1 is not defined"],
      ['$x', "--jq '$x': $x is not defined"],
      [
        '.a,\n.b +',
        "--jq '.a,\n.b +': syntax error, unexpected end of file (Unix shell quoting issues?) (line 2)",
      ],
      ['.[] | select(.a == "it\'s")', '--jq ".[] | select(.a == \\"it\'s\\")": [expected no error]'],
    ] as const) {
      if (message.endsWith('[expected no error]')) {
        await expect(JqProgram.compile(expression, ENV)).resolves.toBeInstanceOf(JqProgram)
        continue
      }
      expect(await failure(() => JqProgram.compile(expression, ENV))).toEqual({
        kind: 'usage',
        message,
      })
    }
    expect(await failure(() => JqProgram.compile(' ', ENV))).toEqual({
      kind: 'usage',
      message: '--jq needs an expression, e.g. --jq .[].id',
    })
  })

  it('halt_error is an error with its message; halt is none; debug goes to the messages', async () => {
    expect((await run('"stop here\\n" | halt_error', null)).error?.message).toBe(
      '--jq \'"stop here\\n" | halt_error\': stop here',
    )
    expect(await run('1, halt, 2', null)).toEqual({ text: '1\n', messages: '' })
    expect(await run('debug | .a', { a: 1 })).toEqual({ text: '1\n', messages: '["DEBUG:",{"a":1}]\n' })
  })

  it("sees pay's environment without the API key", async () => {
    expect((await run('env.PAY_TEST_EMAIL, env.PAY_API_KEY, $ENV.HOME', null)).text).toBe(
      'jane@example.com\nnull\n/home/jane\n',
    )
  })

  it('takes big inputs in linear time: 20,000 links through `.[] | ._id` and `length`', async () => {
    const links = Array.from({ length: 20_000 }, (_, i) => ({
      _id: `link${String(i).padStart(20, '0')}`,
      title: `Invoice ${i}`,
      amount: i + 0.5,
    }))
    const ids = (await run('.[]._id', links)).text.split('\n')
    expect(ids).toHaveLength(20_001)
    expect(ids[19_999]).toBe('link00000000000000019999')
    expect((await run('length', links)).text).toBe('20000\n')
  })
})
