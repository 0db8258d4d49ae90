import fs from 'node:fs'
import type http from 'node:http'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import type { CliResult } from '../../helpers/cli.js'
import { envelope, sendJson } from '../../helpers/fake-server.js'
import { cutOff, hang } from '../../helpers/fault-server.js'
import {
  auth,
  CANARY,
  CUT_FILLER,
  inModes,
  type LeakCase,
  leakEnv,
  leakEnvironment,
} from '../../helpers/leak.js'
import { linkCreateArgs, rawControlBytes } from '../../helpers/links.js'
import { mapConcurrent } from '../../helpers/subs.js'

/**
 * The key never leaks. Every command runs with a recognisable key against a sandbox that
 * knows it (in this process) and against servers that answer every kind of failure, many of
 * them echoing the key back in bodies, headers and status lines. Every byte pay wrote is then
 * scanned for the key and for any 8 consecutive characters of its secret part: stdout, stderr,
 * and every file under the run's HOME, XDG dirs, TMPDIR, config dir, sandbox store and
 * --report files, except the config file itself (where `pay login` keeps the key by design).
 * This file: the error paths.
 */

const { root, dirs, configFiles, state, scan, problems, pay, faulty, scanFiles, summary } = leakEnvironment()

describe('the key never leaks', () => {
  it('error paths: 401, 404, 422, 5xx, HTML, timeouts, refused connections, bad flags, corrupt config, crashes', async () => {
    const key = (request: { headers: http.IncomingHttpHeaders }) => auth(request).replace(/^Bearer /, '')
    const servers = {
      // The key echoed in the message, a field name, a field message, a header and the status line.
      unauthorized: await faulty((request, response) => {
        response.writeHead(401, `Unauthorized ${auth(request)}`, {
          'content-type': 'application/json',
          'x-request-id': auth(request),
        })
        response.end(
          JSON.stringify({
            message: `Unknown key ${auth(request)}`,
            errors: { [key(request)]: [auth(request)] },
          }),
        )
      }),
      invalid: await faulty((request, response) =>
        sendJson(response, 422, {
          message: `Invalid data for ${auth(request)}`,
          errors: { email: [`${key(request)} is not an e-mail`], [key(request)]: ['unknown field'] },
        }),
      ),
      // The key among escapes and bidi controls in a 422's field names and messages: what pay
      // sanitises (and, with --debug, prints again in the error's stack) must still be redacted.
      hostileInvalid: await faulty((request, response) =>
        sendJson(response, 422, {
          message: `Invalid\u001b[2J for \u202e${auth(request)}`,
          errors: {
            [`\u001b]0;${key(request)}\u0007`]: [`\u009b31m${key(request)}\u2066`],
            [`ref\u202e${key(request)}`]: ['x'],
          },
        }),
      ),
      unavailable: await faulty((request, response) =>
        sendJson(
          response,
          503,
          { message: `Down for ${auth(request)}` },
          {
            'retry-after': '0',
            'x-request-id': key(request),
          },
        ),
      ),
      // Long server text is cut at 200 characters: these put the cut in the middle of the key.
      text: await faulty((request, response) => {
        response.writeHead(500, { 'content-type': 'text/plain' })
        response.end(`${CUT_FILLER}${key(request)} trailing words`)
      }),
      htmlTitle: await faulty((request, response) => {
        response.writeHead(502, { 'content-type': 'text/html' })
        response.end(
          `<html><head><title>${CUT_FILLER}${key(request)}</title></head><body>${key(request)}</body></html>`,
        )
      }),
      htmlBody: await faulty((request, response) => {
        response.writeHead(500, { 'content-type': 'text/html' })
        response.end(`<html><body><p>${CUT_FILLER}${key(request)}</p><p>more</p></body></html>`)
      }),
      // A JSON string body with the key written in \u escapes: only the parsed text shows it.
      jsonString: await faulty((request, response) => {
        response.writeHead(500, { 'content-type': 'application/json' })
        response.end(`"${CUT_FILLER}\\u0073${key(request).slice(1)} trailing words"`)
      }),
      // A 200 whose record holds the key in \u escapes: printed data must not reveal it either.
      escapedRecord: await faulty((request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' })
        response.end(`{"data":{"_id":"lnk_1","title":"\\u0073${key(request).slice(1)}"}}`)
      }),
      redirect: await faulty((request, response) => {
        response.writeHead(302, { location: `https://elsewhere.example/login?key=${key(request)}` })
        response.end()
      }),
      hang: await faulty(hang()),
      cutOff: await faulty(cutOff('{"success":true,"data":{"_id":"lnk_1","title":"')),
      // Answers that made rendering throw an unexpected exception (see the report).
      deep: await faulty((_, response) => {
        response.writeHead(200, { 'content-type': 'application/json' })
        response.end(`{"data":{"_id":"lnk_1","title":${'['.repeat(100_000)}${']'.repeat(100_000)}}}`)
      }),
      primitive: await faulty((_, response) =>
        sendJson(
          response,
          200,
          envelope([{ _id: { toString: null, valueOf: null }, status: { toString: 1 } }]),
        ),
      ),
      marked: await faulty((_, response) =>
        sendJson(response, 200, envelope({ _id: 'lnk_1', title: 'T', meta: { note: '__inject_crash__' } })),
      ),
    }
    // A pay that throws an unexpected TypeError while it renders a marked answer: the generic
    // error path, with --debug its stack trace.
    const crash = path.join(root, 'inject-crash.cjs')
    fs.writeFileSync(
      crash,
      [
        'const stringify = JSON.stringify',
        'JSON.stringify = function (...args) {',
        '  const text = stringify.apply(this, args)',
        "  if (typeof text === 'string' && text.includes('__inject_crash__')) throw new TypeError('injected failure while rendering')",
        '  return text',
        '}',
      ].join('\n'),
    )
    const refused = `http://127.0.0.1:${state.closedPort}`
    const GET = ['links', 'get', 'lnk_1']
    const CREATE = linkCreateArgs('1')
    const unknown = 'ffff00000000000000000000'
    const noStack = (result: CliResult) => expect(result.stderr).not.toMatch(/^\s+at /m)

    const cases: LeakCase[] = [
      // 401
      ...inModes({ label: '401 echoing the key', args: GET, env: leakEnv(servers.unauthorized), code: 4 }),
      {
        label: 'login --with-key 401 echoing the key',
        args: ['login', '--profile', 'echo', '--base-url', servers.unauthorized, '--with-key', '--debug'],
        input: CANARY,
        code: 4,
      },
      ...inModes({
        label: '401 from a sandbox without the key',
        args: ['links', 'list'],
        env: leakEnv(state.stranger.baseUrl),
        code: 4,
      }),
      {
        label: 'login --with-key 401 from a sandbox',
        args: ['login', '--profile', 'bad', '--base-url', state.stranger.baseUrl, '--with-key'],
        input: CANARY,
        code: 4,
      },
      // 404
      ...inModes({
        label: 'links get 404',
        args: ['links', 'get', unknown],
        env: leakEnv(state.sandbox.baseUrl),
        code: 5,
      }),
      {
        label: 'subs get 404',
        args: ['subs', 'get', unknown, '--debug'],
        env: leakEnv(state.sandbox.baseUrl),
        code: 5,
      },
      {
        label: 'links update 404',
        args: ['links', 'update', unknown, '--title', 'X'],
        env: leakEnv(state.sandbox.baseUrl),
        code: 5,
      },
      {
        label: 'links delete 404',
        args: ['links', 'delete', unknown, '--yes', '--json'],
        env: leakEnv(state.sandbox.baseUrl),
        code: 5,
      },
      {
        label: 'subs delete 404',
        args: ['subs', 'delete', unknown, '--yes', '--debug'],
        env: leakEnv(state.sandbox.baseUrl),
        code: 5,
      },
      {
        label: 'subs update 404',
        args: ['subs', 'update', unknown, '--phone', '1'],
        env: leakEnv(state.sandbox.baseUrl),
        code: 5,
      },
      {
        label: 'subs cancel 404 --report',
        args: ['subs', 'cancel', unknown, '--yes', '--report', path.join(dirs.reports, '404.csv')],
        env: leakEnv(state.sandbox.baseUrl),
        code: 5,
      },
      { label: 'sandbox pay 404', args: ['sandbox', 'pay', unknown, '--debug'], code: 5 },
      // 422
      ...inModes({
        label: 'subs create 422 (unknown package)',
        args: ['subs', 'create', '--package-id', 'nope', '--email', 'a@b.co'],
        env: leakEnv(state.sandbox.baseUrl),
        code: 3,
      }),
      ...inModes({ label: '422 echoing the key', args: CREATE, env: leakEnv(servers.invalid), code: 3 }),
      ...inModes({
        label: '422 echoing the key among escapes (field names, --debug stack)',
        args: CREATE,
        env: leakEnv(servers.hostileInvalid),
        code: 3,
        check: (result) => {
          expect(rawControlBytes(Buffer.from(result.stderr))).toEqual([])
          expect(result.stderr).not.toMatch(/[\u202a-\u202e\u2066-\u2069]/)
          expect(result.stderr).toContain('[REDACTED]')
        },
      }),
      {
        label: 'api 422 echoing the key among escapes, --debug',
        args: ['api', '/payment-links', '-f', 'a=b', '--debug'],
        env: leakEnv(servers.hostileInvalid),
        code: 3,
        check: (result) =>
          expect(result.stderr).toMatch(/^PayError: Invalid\^\[\[2J for <U\+202E>Bearer \[REDACTED\]$/m),
      },
      // 5xx, text, HTML
      ...inModes({
        label: '503 echoing the key, retried',
        args: ['links', 'list'],
        env: leakEnv(servers.unavailable),
        code: 6,
      }),
      {
        label: 'token create 503',
        args: ['token', 'create', '--email', 'a@b.co', '--title', 'T', '--description', 'D', '--debug'],
        env: leakEnv(servers.unavailable),
        code: 6,
      },
      ...inModes({ label: '500 text cut mid-key', args: GET, env: leakEnv(servers.text), code: 6 }),
      ...inModes({
        label: '502 HTML title cut mid-key',
        args: GET,
        env: leakEnv(servers.htmlTitle),
        code: 6,
      }),
      {
        label: '500 HTML body cut mid-key',
        args: ['subs', 'get', 'x', '--debug'],
        env: leakEnv(servers.htmlBody),
        code: 6,
      },
      ...inModes({
        label: '500 JSON string, escaped key cut',
        args: GET,
        env: leakEnv(servers.jsonString),
        code: 6,
      }),
      ...inModes({
        label: '302 to a URL holding the key',
        args: GET,
        env: leakEnv(servers.redirect),
        code: 6,
      }),
      // pay api prints bodies and, with -i, the status line and headers: all of them echoing the key.
      ...inModes({
        label: 'api -i 401 echoing the key',
        args: ['api', '/payment-links/lnk_1', '-i'],
        env: leakEnv(servers.unauthorized),
        code: 4,
      }),
      ...inModes({
        label: 'api -i POST 422 echoing the key',
        args: ['api', '/payment-links', '-f', 'title=T', '-i'],
        env: leakEnv(servers.invalid),
        code: 3,
      }),
      ...inModes({
        label: 'api --paginate -i 503 echoing the key',
        args: ['api', '/payment-links', '--paginate', '-i', '--jq', '.'],
        env: leakEnv(servers.unavailable),
        code: 6,
      }),
      { label: 'api 500 text cut mid-key', args: ['api', '/x', '-i'], env: leakEnv(servers.text), code: 6 },
      {
        label: 'api 502 HTML title',
        args: ['api', '/x', '--debug'],
        env: leakEnv(servers.htmlTitle),
        code: 6,
      },
      ...inModes({
        label: 'api 500 JSON string, escaped key',
        args: ['api', '/x', '--jq', '.'],
        env: leakEnv(servers.jsonString),
        code: 6,
      }),
      ...inModes({
        label: 'api of a record holding the escaped key',
        args: ['api', '/payment-links/lnk_1'],
        env: leakEnv(servers.escapedRecord),
        code: 0,
      }),
      ...inModes({
        label: 'links get --jq of a record holding the escaped key',
        args: [...GET, '--jq', '.title'],
        env: leakEnv(servers.escapedRecord),
        code: 0,
      }),
      {
        label: 'api 302 to a URL holding the key',
        args: ['api', '/x', '-i'],
        env: leakEnv(servers.redirect),
        code: 6,
      },
      {
        label: 'api refused Authorization header holding the key',
        args: ['api', '/x', '-H', `Authorization: Bearer ${CANARY}`, '--debug'],
        env: leakEnv(state.sandbox.baseUrl),
        code: 2,
      },
      // timeouts, refused and cut-off connections
      { label: 'timeout', args: [...GET, '--timeout', '1'], env: leakEnv(servers.hang), code: 6 },
      {
        label: 'timeout --debug',
        args: [...CREATE, '--timeout', '1', '--debug'],
        env: leakEnv(servers.hang),
        code: 6,
      },
      {
        label: 'subs cancel timeout --report',
        args: [
          'subs',
          'cancel',
          'sub_1',
          '--yes',
          '--timeout',
          '1',
          '--json',
          '--report',
          path.join(dirs.reports, 'hang.csv'),
        ],
        env: leakEnv(servers.hang),
        code: 6,
      },
      ...inModes({ label: 'connection refused', args: ['links', 'list'], env: leakEnv(refused), code: 6 }),
      {
        label: 'token create refused',
        args: ['token', 'create', '--email', 'a@b.co', '--title', 'T', '--description', 'D'],
        env: leakEnv(refused),
        code: 6,
      },
      {
        label: 'login --with-key refused',
        args: ['login', '--base-url', refused, '--with-key', '--debug'],
        input: CANARY,
        code: 6,
      },
      ...inModes({ label: 'closed mid-body (GET)', args: GET, env: leakEnv(servers.cutOff), code: 6 }),
      {
        label: 'closed mid-body (POST)',
        args: [...CREATE, '--debug'],
        env: leakEnv(servers.cutOff),
        code: 6,
      },
      // bad flags and usage
      ...inModes({
        label: 'links create --amount abc',
        args: [
          'links',
          'create',
          '--email',
          'a@b.co',
          '--currency',
          'EUR',
          '--amount',
          'abc',
          '--title',
          'T',
        ],
        env: leakEnv(state.sandbox.baseUrl),
        code: 3,
      }),
      {
        label: 'links get without id',
        args: ['links', 'get', '--debug'],
        env: leakEnv(state.sandbox.baseUrl),
        code: 2,
      },
      {
        label: 'links list --timeout 0',
        args: ['links', 'list', '--timeout', '0', '--json'],
        env: leakEnv(state.sandbox.baseUrl),
        code: 2,
      },
      {
        label: 'links list --bogus',
        args: ['links', 'list', '--bogus', '--debug'],
        env: leakEnv(state.sandbox.baseUrl),
        code: 2,
      },
      {
        label: 'subs cancel without --yes',
        args: ['subs', 'cancel', 'sub_1', '--debug'],
        env: leakEnv(state.sandbox.baseUrl),
        // The plan looks the subscription up first: unknown, so there is nothing to confirm.
        code: 5,
      },
      {
        label: 'subs delete without --yes',
        args: ['subs', 'delete', 'sub_1', '--json'],
        env: leakEnv(state.sandbox.baseUrl),
        // The plan looks the subscription up first: unknown, so there is nothing to confirm.
        code: 5,
      },
      {
        label: 'links list over plain http',
        args: ['links', 'list', '--base-url', 'http://pay.example', '--debug'],
        env: { PAY_API_KEY: CANARY },
        code: 2,
      },
      {
        label: 'login --with-key, empty stdin',
        args: ['login', '--base-url', state.sandbox.baseUrl, '--with-key', '--debug'],
        input: '',
        code: 2,
      },
      {
        label: 'login without --with-key off a terminal',
        args: ['login', '--base-url', state.sandbox.baseUrl],
        input: CANARY,
        code: 2,
      },
      // unexpected answers and an unexpected exception
      ...inModes({ label: '100 000 nested arrays', args: GET, env: leakEnv(servers.deep), code: 6 }),
      ...inModes({
        label: 'objects without toString',
        args: ['links', 'list', '--status', 'active'],
        env: leakEnv(servers.primitive),
        code: 0,
      }),
      ...inModes({
        label: 'an unexpected TypeError while rendering',
        args: [...GET, '--json'],
        env: { ...leakEnv(servers.marked), NODE_OPTIONS: `--require ${crash}` },
        code: 1,
      }).map((c) => ({ ...c, args: c.args.filter((arg, i, all) => all.indexOf(arg) === i) })),
    ]
    await mapConcurrent(cases, 6, async (c) => {
      const result = await pay(c)
      if (!c.args.includes('--debug')) noStack(result)
    })

    // Corrupt config files holding the key, each read by the commands that read the config.
    const corrupt = [
      `{"current":"live","profiles":{"live":{"api_key":"${CANARY.slice(0, 20)}`,
      `{"current":"live","profiles":{"live":{"api_key":"${CANARY}" "base_url":"https://pay.example"}}}`,
      `{"current":"live","profiles":{"live":{"api_key":${CANARY},"base_url":"https://pay.example"}}}`,
      `{"current":"live","profiles":{"live":{"api_key":"${CANARY}","base_url":5}}}`,
      `["${CANARY}"]`,
      `{"current":["${CANARY}"],"profiles":{}}`,
      `{"current":"live","profiles":{"live":{"api_key":"${CANARY}","base_url":"https://pay.example"}}}}`,
    ]
    const readers = [
      ['links', 'list'],
      ['profiles', 'list'],
      ['login', '--with-key', '--no-verify', '--base-url', 'https://pay.example'],
    ]
    const corruptCases = corrupt.map((content, i): LeakCase => {
      const dir = path.join(root, `corrupt-${i}`)
      fs.mkdirSync(dir, { mode: 0o700 })
      fs.writeFileSync(path.join(dir, 'config.json'), content, { mode: 0o600 })
      configFiles.add(path.join(dir, 'config.json'))
      const args = readers[i % readers.length]
      return {
        label: `${args.slice(0, 2).join(' ')} with corrupt config ${i}`,
        args: [...args, ...(i % 2 === 0 ? ['--debug'] : ['--json'])],
        env: { PAY_CONFIG_DIR: dir },
        input: CANARY,
        code: 1,
      }
    })
    await mapConcurrent(corruptCases, 6, pay)
    expect(problems).toEqual([])
  })

  it('leaves no trace in any file: store, reports, caches, config dir, HOME, TMPDIR', () => {
    const scanned = scanFiles((file) => file.endsWith('inject-crash.cjs'))
    const under = (dir: string) => scanned.filter((file) => file.startsWith(`${dir}${path.sep}`))
    // The files the runs are known to write were there to be scanned.
    expect(under(dirs.store).map((file) => path.basename(file))).toContain('store.db')
    // Two reports, each with its .meta.json.
    expect(under(dirs.reports).length).toBe(4)
    if (!(process.versions.node.split('.').map(Number)[0] >= 22)) {
      expect(under(path.join(dirs.cache, 'pay')).some((file) => /v8-.*\.bin$/.test(file))).toBe(true)
    }
    expect(scan.hits).toEqual([])
    console.log(`leak scan (error paths): ${summary()}`)
  })
})
