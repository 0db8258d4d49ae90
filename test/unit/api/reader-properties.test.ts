import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { errorFromResponse, parseBody, readDeleted, readPage, readRecord } from '../../../src/api/reader.js'
import { PayError } from '../../../src/errors.js'
import { ANSWER_TEXT, onlyPayErrors, SERVER_VALUE } from '../../helpers/server-json.js'

/** Property-based tests of the tolerant reader: any answer is a value or a PayError. */

const RUNS = { readers: 1000 }

describe('(b) the tolerant reader: any answer is a value or a PayError', () => {
  it('readRecord, readPage and readDeleted, on any JSON', () => {
    fc.assert(
      fc.property(SERVER_VALUE, (body) => {
        onlyPayErrors(() => readRecord(body, 'payment link'))
        onlyPayErrors(() => readPage(body, 'payment link'))
        onlyPayErrors(() => readDeleted(body))
      }),
      { numRuns: RUNS.readers },
    )
  })

  it('parseBody and errorFromResponse, on any text, status and content type', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 100, max: 599 }),
        fc.oneof(ANSWER_TEXT, fc.string({ unit: 'binary' })),
        fc.option(fc.constantFrom('application/json', 'text/html', 'text/plain', ''), { nil: undefined }),
        (status, text, contentType) => {
          onlyPayErrors(() => parseBody(status, text, contentType))
          const error = errorFromResponse(status, text, contentType)
          expect(error).toBeInstanceOf(PayError)
          expect(typeof error.message).toBe('string')
        },
      ),
      { numRuns: RUNS.readers },
    )
  })
})
