import { describe, expect, it } from 'vitest'
import { envelope } from '../../helpers/fake-server.js'
import { type Handler, json, payRunner, serve } from '../../helpers/fault-server.js'
import { runInProcess } from '../../helpers/in-process.js'
import { rawControlBytes } from '../../helpers/links.js'

/** pay, run in this process against the fault servers (test/helpers/in-process.ts). */
const runPay = payRunner(runInProcess)

/**
 * A hostile server's text in every place pay shows it on a terminal: 422 field names as well as
 * messages, the --debug trace (status line, headers, bodies) and the stack --debug prints, and
 * Unicode's bidirectional controls, which reorder what a terminal shows. Outside JSON none of it
 * is written raw; JSON keeps the data exact (escaped, so its text holds no raw control either).
 */

const CREATE = ['links', 'create', '--email', 'a@b.co', '--currency', 'EUR', '--amount', '10', '--title', 'T']
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/

const HOSTILE_422 = {
  message: 'The given data\u001b]0;owned\u0007 was invalid.\u202e',
  errors: {
    'email\u001b[2J': ['Bad\u202eevil'],
    '\u009b31mtitle': ['Red\u001b[31m'],
    'ref\u2066': ['x'],
  },
}

/** Nothing raw: no control byte but tab and newline, no bidirectional control. */
function expectNothingRaw(text: string) {
  expect(rawControlBytes(Buffer.from(text))).toEqual([])
  expect(text).not.toMatch(BIDI)
}

describe.concurrent('a 422 whose field names carry escapes', () => {
  it('links create: names and messages shown in caret notation and <U+…>, aligned as shown', async (t) => {
    const server = await serve(t, json(422, HOSTILE_422))
    const result = await runPay(CREATE, server.baseUrl)
    expect(result).toMatchObject({
      code: 3,
      stdout: '',
      stderr: [
        'Error: The given data^[]0;owned^G was invalid.<U+202E>',
        '  --email^[[2J    Bad<U+202E>evil',
        '  --M-^[31mtitle  Red^[[31m',
        '  --ref<U+2066>   x',
        '',
      ].join('\n'),
    })
    expectNothingRaw(result.stderr)
  })

  it('pay api: the field names as sent, sanitised the same way; the body on stdout stays exact JSON', async (t) => {
    const server = await serve(t, json(422, HOSTILE_422))
    const result = await runPay(['api', '/payment-links', '-f', 'email=a@b.co'], server.baseUrl)
    expect(result.code).toBe(3)
    expect(result.stderr).toBe(
      [
        'Error: The given data^[]0;owned^G was invalid.<U+202E>',
        '  email^[[2J    Bad<U+202E>evil',
        '  M-^[31mtitle  Red^[[31m',
        '  ref<U+2066>   x',
        '',
      ].join('\n'),
    )
    expect(JSON.parse(result.stdout)).toEqual(HOSTILE_422)
    expectNothingRaw(result.stdout)
    expectNothingRaw(result.stderr)
  })

  it('--json: the error as JSON on stderr with the exact names, every control and bidi mark escaped', async (t) => {
    const server = await serve(t, json(422, HOSTILE_422))
    const result = await runPay([...CREATE, '--json'], server.baseUrl)
    expect(result.code).toBe(3)
    expect(JSON.parse(result.stderr).error).toMatchObject({
      message: HOSTILE_422.message,
      errors: HOSTILE_422.errors,
    })
    expect(result.stderr).toContain(String.raw`"ref\u2066":["x"]`)
    expectNothingRaw(result.stderr)
  })

  it('--debug: the trace and the stack after the error are sanitised too', async (t) => {
    const server = await serve(t, json(422, HOSTILE_422))
    const result = await runPay([...CREATE, '--debug'], server.baseUrl)
    expect(result.code).toBe(3)
    const lines = result.stderr.split('\n')
    // The stack starts with the error's message, the server's words.
    expect(lines).toContain('PayError: The given data^[]0;owned^G was invalid.<U+202E>')
    expect(lines.some((line) => /^\s+at /.test(line))).toBe(true)
    expect(lines).toContain(
      '[debug] <   "message": "The given data\\u001b]0;owned\\u0007 was invalid.<U+202E>",',
    )
    expectNothingRaw(result.stderr)
  })
})

/** An answer written straight on the socket: a status line no well-behaved server would send. */
const rawAnswer =
  (head: string, body: string): Handler =>
  (_, res) => {
    res.socket?.end(`${head}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
  }

describe.concurrent('the --debug trace of a hostile answer', () => {
  it('a status line holding ESC, a C1 control and a bidi override is shown in caret notation', async (t) => {
    const server = await serve(
      t,
      rawAnswer(
        'HTTP/1.1 404 Gone\u001b[2J\u001b[H\u009b31m\u202eevil\r\ncontent-type: application/json\r\nx-request-id: id\u009bx',
        JSON.stringify({ message: 'No such link\u001b[5m\u202e' }),
      ),
    )
    const result = await runPay(['links', 'get', 'lnk_1', '--debug'], server.baseUrl)
    expect(result.code).toBe(5)
    const lines = result.stderr.split('\n')
    // Node reads a status line and headers as Latin-1: the UTF-8 bytes of U+009B are Â and 0x9b.
    expect(lines).toContainEqual(expect.stringMatching(/^\[debug\] < 404 Gone\^\[\[2J\^\[\[HÂM-\^\[31m/))
    expect(lines).toContain('[debug] < x-request-id: idÂM-^[x')
    expect(lines).toContain('Error: No such link^[[5m<U+202E>')
    expect(lines).toContain('PayError: No such link^[[5m<U+202E>')
    expectNothingRaw(result.stderr)
  })
})

describe.concurrent('bidirectional controls in records', () => {
  const LINK = {
    _id: 'lnk_bidi',
    status: 'Active',
    paid: false,
    amount: 10,
    currency: 'EUR',
    email: 'a@b.co',
    title: 'Invoice \u2067fdp.exe\u2069',
    reference: 'REF-\u202eevil',
  }

  it('piped (TSV) and through --jq: shown as <U+202E>, never raw', async (t) => {
    const server = await serve(t, json(200, envelope(LINK)))
    const result = await runPay(['links', 'get', 'lnk_bidi'], server.baseUrl)
    expect(result.code).toBe(0)
    expect(result.stdout.split('\n')).toEqual(
      expect.arrayContaining(['title\tInvoice <U+2067>fdp.exe<U+2069>', 'reference\tREF-<U+202E>evil']),
    )
    expectNothingRaw(result.stdout)
    const jq = await runPay(['links', 'get', 'lnk_bidi', '--jq', '.reference'], server.baseUrl)
    expect([jq.code, jq.stdout]).toEqual([0, 'REF-<U+202E>evil\n'])
  })

  it('--json keeps the data exact, the controls written as \\u escapes', async (t) => {
    const server = await serve(t, json(200, envelope(LINK)))
    const result = await runPay(['links', 'get', 'lnk_bidi', '--json'], server.baseUrl)
    expect(result.code).toBe(0)
    expect(JSON.parse(result.stdout)).toEqual(LINK)
    expect(result.stdout).toContain(String.raw`"reference": "REF-\u202eevil"`)
    expectNothingRaw(result.stdout)
  })
})
