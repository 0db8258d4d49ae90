import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { runCli } from '../../helpers/cli.js'
import { envelope, sendJson, startFakeServer } from '../../helpers/fake-server.js'
import { argvFor, COMMANDS, expected, expectModel, inputArbitrary } from '../../helpers/flag-model.js'

/**
 * The flag model of properties.test.ts, through the real bin/run.js: what a process argument
 * can carry (no NUL) reaches the same rules, and the bundle behaves like the sources. Fewer
 * runs than in-process, since each run is a node process.
 */

const RUNS_PER_COMMAND = 20
const MAX_BATCHES = 8

/** A payment link as the server holds it (links update fetches it before the PUT). */
const CURRENT_LINK = {
  _id: '65a1f0c2e4b0a1b2c3d4e5f6',
  email: 'jane@example.com',
  currency: 'EUR',
  amount: 25.5,
  title: 'Invoice 1042',
  reference: 'INV-1042',
}

describe.concurrent('any flag values through bin/run.js: a clear error, or exactly the request', () => {
  it.each(COMMANDS.map((spec) => [spec.name, spec] as const))('%s', async (_, spec) => {
    const server = await startFakeServer((request, response) => {
      if (request.method === 'GET') return sendJson(response, 200, envelope(CURRENT_LINK))
      sendJson(response, 200, envelope({ _id: 'rec_1', ...JSON.parse(request.body || '{}') }))
    })
    try {
      const env = { PAY_API_KEY: 'sk_test_property_cli', PAY_BASE_URL: server.baseUrl }
      let requested = 0
      // The request half is checked only by runs that reach the server: about one run in eight of
      // links create's (20 runs reach it none at all about one time in fifteen), so another 20
      // runs follow until one has, up to MAX_BATCHES.
      for (let batch = 0; batch < MAX_BATCHES && requested === 0; batch++) {
        await fc.assert(
          fc.asyncProperty(inputArbitrary(spec, { argvSafe: true }), async (input) => {
            server.requests.length = 0
            const result = await runCli(argvFor(spec, input), { env })
            expectModel(expected(spec, input, CURRENT_LINK), result, server.requests)
            if (result.code === 0) requested += 1
          }),
          { numRuns: RUNS_PER_COMMAND },
        )
      }
      expect(requested).toBeGreaterThan(0)
    } finally {
      await server.close()
    }
  })
})
