import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { collectIds, parseIdList } from '../../../src/bulk/ids.js'
import { PayError } from '../../../src/errors.js'
import { tempDir } from '../../helpers/cli.js'
import { TestIO } from '../../helpers/io.js'

describe('parseIdList', () => {
  it('takes one id per line; blank lines and # comments are ignored; CRLF is fine', () => {
    expect(parseIdList('a\r\n\n  b  \n# a comment\nc # after the id\n\t\n')).toEqual(['a', 'b', 'c'])
    expect(parseIdList('')).toEqual([])
  })
})

describe('collectIds', () => {
  it('takes arguments, then --from-file, then stdin (-), in order, each id once', async () => {
    const file = path.join(tempDir(), 'ids.txt')
    fs.writeFileSync(file, 'f1\nshared\nf2\n')
    const io = new TestIO({ stdin: 's1\nshared\na1\n' })
    expect(await collectIds(['a1', '-', 'a2'], file, io)).toEqual(['a1', 'a2', 'f1', 'shared', 'f2', 's1'])
  })

  it('reads stdin only when asked to (`-` or --from-file -)', async () => {
    const io = new TestIO({ stdin: 'from-stdin\n' })
    expect(await collectIds(['a'], undefined, io)).toEqual(['a'])
    expect(await collectIds([], '-', io)).toEqual(['from-stdin'])
  })

  it('names a --from-file that cannot be read as a usage error (exit 2)', async () => {
    const missing = path.join(tempDir(), 'missing.txt')
    const error = await collectIds([], missing, new TestIO()).catch((thrown: unknown) => thrown)
    expect(error).toBeInstanceOf(PayError)
    expect([(error as PayError).message, (error as PayError).exitCode]).toEqual([
      `--from-file: cannot read ${missing}: no such file.`,
      2,
    ])
  })
})
