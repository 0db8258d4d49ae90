import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { idProblem, normalizeId } from '../../../src/bulk/id-text.js'
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

describe('ids as people paste them', () => {
  it('takes the id out of a payment URL, trims, and lower-cases hex ids', () => {
    expect(normalizeId('http://127.0.0.1:4010/checkout/pay?id=65A1F0C2E4B0A1B2C3D4E5F6')).toBe(
      '65a1f0c2e4b0a1b2c3d4e5f6',
    )
    expect(normalizeId('  https://pay.example/checkout/pay?ref=x&id=65a1f0c2e4b0a1b2c3d4e5f6#top ')).toBe(
      '65a1f0c2e4b0a1b2c3d4e5f6',
    )
    expect(normalizeId(' 65B2A0C2E4B0A1B2C3D4E5F6\t')).toBe('65b2a0c2e4b0a1b2c3d4e5f6')
    // Not hex: kept as typed (another service's ids may be case-sensitive).
    expect(normalizeId('Lnk_9')).toBe('Lnk_9')
    // A URL without an id is left as it is, and is no id.
    expect(normalizeId('https://pay.example/checkout/pay')).toBe('https://pay.example/checkout/pay')
    expect(idProblem('https://pay.example/checkout/pay')).toBe(
      'a URL without an id (a payment_url carries ?id=…)',
    )
    expect(idProblem('65a1f0c2e4b0a1b2c3d4e5f6')).toBeUndefined()
  })

  it('takes an id out of the quotes or angle brackets it was pasted in, and refuses what no id holds', () => {
    const id = '65a1f0c2e4b0a1b2c3d4e5f6'
    for (const pasted of [
      `"${id}"`,
      `'${id.toUpperCase()}'`,
      `\`${id}\``,
      `<${id}>`,
      ` " ${id} " `,
      `\u201c${id}\u201d`,
      `\u2018${id}\u2019`,
      `\u00ab${id}\u00bb`,
      `<https://pay.example/checkout/pay?id=${id}>`,
      `"<http://127.0.0.1:4010/checkout/pay?id=${id}>"`,
      `https://pay.example/checkout/pay?id=%22${id}%22`,
    ]) {
      expect([pasted, normalizeId(pasted)]).toEqual([pasted, id])
    }
    // Only a pair around the whole: one quote, or quotes that do not match, stay (and are refused).
    expect(normalizeId(`"${id}`)).toBe(`"${id}`)
    expect(normalizeId(`"${id}'`)).toBe(`"${id}'`)
    expect(
      [`"${id}`, `${id}>`, 'a b', 'x,y', '.', '..', '', 'a\u0007b', 'ftp://x/?id=1'].map((text) =>
        idProblem(normalizeId(text)),
      ),
    ).toEqual([
      'it contains a quote',
      'it contains an angle bracket',
      'it contains a space',
      'it contains a comma (one id per line)',
      'only dots',
      'only dots',
      'empty',
      'it contains a control character',
      'a URL without an id (a payment_url carries ?id=…)',
    ])
  })

  it('skips a first line naming the column, and reads ids from a file, stdin and arguments alike', async () => {
    expect(parseIdList('id\na\nb\n')).toEqual(['a', 'b'])
    expect(parseIdList('\uFEFF"_id"\r\na\n')).toEqual(['a'])
    expect(parseIdList('# churned in May\nSubscription_ID\na\n')).toEqual(['a'])
    // Only the first line: an id further down is an id.
    expect(parseIdList('a\nid\n')).toEqual(['a', 'id'])
    const file = path.join(tempDir(), 'ids.txt')
    fs.writeFileSync(file, 'subscription_id\n65B2A0C2E4B0A1B2C3D4E5F6\n')
    const io = new TestIO({ stdin: '_id\n http://x/checkout/pay?id=65B2A0C2E4B0A1B2C3D4E5F7\n' })
    expect(await collectIds(['65b2a0c2e4b0a1b2c3d4e5f6 ', '-'], file, io)).toEqual([
      '65b2a0c2e4b0a1b2c3d4e5f6',
      '65b2a0c2e4b0a1b2c3d4e5f7',
    ])
  })

  it('says so when given a report of another kind, instead of planning an empty id', async () => {
    const dir = tempDir()
    const create = path.join(dir, 'create.csv')
    fs.writeFileSync(
      create,
      'line,ok,status,error,_id,payment_url\n2,true,created,,65a1f0c2e4b0a1b2c3d4e5f6,x\n',
    )
    const error = (await collectIds([], create, new TestIO(), 'subscription').catch(
      (e: unknown) => e,
    )) as PayError
    expect([error.message, error.exitCode]).toEqual([
      `--from-file: ${create} is a report of \`pay links create --from-csv\` (one row per CSV line); it holds no subscription ids.`,
      2,
    ])
    // The links a create report made are what `links delete` may act on.
    expect(await collectIds([], create, new TestIO(), 'payment link')).toEqual(['65a1f0c2e4b0a1b2c3d4e5f6'])
    const deletes = path.join(dir, 'deletes.csv')
    fs.writeFileSync(
      deletes,
      'id,ok,status,error,at,email,title,amount,currency\nl1,true,deleted,,,,T,1,EUR\n',
    )
    const other = (await collectIds([], deletes, new TestIO(), 'subscription').catch(
      (e: unknown) => e,
    )) as PayError
    expect([other.message, other.hint]).toEqual([
      `--from-file: ${deletes} is a report of payment links; its ids are not subscription ids.`,
      'Give it to the `pay links` command that acts on payment links.',
    ])
    // A report's formula prefix is removed: the id is the one written.
    const cancels = path.join(dir, 'cancels.csv')
    fs.writeFileSync(
      cancels,
      "id,ok,status,error,at,email,package,amount,currency\n'-odd,false,failed,,,,,,\n",
    )
    expect(await collectIds([], cancels, new TestIO(), 'subscription')).toEqual(['-odd'])
  })
})

describe('a list pay wrote with --format csv, given to --from-file', () => {
  const SUBS_HEADER =
    '_id,status,email,package.name,unpaid_charges,amount_owed.amount,amount_owed.currency,package.amount,package.currency,package.frequency,created_at'

  it('takes its _id column: commas, or the semicolons a spreadsheet saved it with, a byte-order mark, quotes', async () => {
    const dir = tempDir()
    const owed = path.join(dir, 'owed.csv')
    fs.writeFileSync(
      owed,
      `\uFEFF${SUBS_HEADER}\n` +
        '65b2a0c2e4b0a1b2c3d4e5f6,created,"a, b@example.com",Monthly,2,30,USD,15,USD,monthly,2026-11-28 20:05:03\n' +
        '65B2A0C2E4B0A1B2C3D4E5F7,created,c@example.com,Monthly,1,15,USD,15,USD,monthly,2026-11-28 20:05:03\n',
    )
    expect(await collectIds([], owed, new TestIO(), 'subscription')).toEqual([
      '65b2a0c2e4b0a1b2c3d4e5f6',
      '65b2a0c2e4b0a1b2c3d4e5f7',
    ])
    const resaved = path.join(dir, 'resaved.csv')
    fs.writeFileSync(resaved, 'email;_id;status\r\na@example.com;65b2a0c2e4b0a1b2c3d4e5f8;created\r\n')
    expect(await collectIds([], resaved, new TestIO(), 'subscription')).toEqual(['65b2a0c2e4b0a1b2c3d4e5f8'])
    // Through stdin too: `pay subs list --unpaid --format csv | pay subs cancel -`.
    const io = new TestIO({
      stdin: `${SUBS_HEADER}\n65b2a0c2e4b0a1b2c3d4e5f9,created,x,M,1,1,USD,1,USD,monthly,\n`,
    })
    expect(await collectIds([], '-', io, 'subscription')).toEqual(['65b2a0c2e4b0a1b2c3d4e5f9'])
  })

  it('a list of the other kind is refused, naming it; a file of ids or of one column is read as before', async () => {
    const dir = tempDir()
    const links = path.join(dir, 'links.csv')
    fs.writeFileSync(
      links,
      '_id,status,paid,amount,currency,email,title\nl1,Active,false,5,EUR,a@example.com,T\n',
    )
    const refused = (await collectIds([], links, new TestIO(), 'subscription').catch(
      (e: unknown) => e,
    )) as PayError
    expect([refused.message, refused.hint, refused.exitCode]).toEqual([
      `--from-file: ${links} is a list of payment links; its ids are not subscription ids.`,
      'Give it to the `pay links` command that acts on payment links.',
      2,
    ])
    expect(await collectIds([], links, new TestIO(), 'payment link')).toEqual(['l1'])
    const subs = path.join(dir, 'subs.csv')
    fs.writeFileSync(subs, `${SUBS_HEADER}\ns1,created,a@example.com,M,1,1,USD,1,USD,monthly,\n`)
    const other = (await collectIds([], subs, new TestIO(), 'payment link').catch(
      (e: unknown) => e,
    )) as PayError
    expect(other.message).toBe(
      `--from-file: ${subs} is a list of subscriptions; its ids are not payment link ids.`,
    )
    const plain = path.join(dir, 'ids.txt')
    fs.writeFileSync(plain, '_id\na1\n# a "note\na2,a3 # two on a line\n')
    expect(await collectIds([], plain, new TestIO(), 'subscription')).toEqual(['a1', 'a2,a3'])
  })
})
