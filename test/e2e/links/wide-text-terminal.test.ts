import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { type Json, seedHeldLink } from '../../helpers/links.js'
import { startTestSandbox, type TestSandbox } from '../../helpers/sandbox.js'
import { closeTerminals, startTestTerminal } from '../../helpers/terminal.js'

/**
 * Titles in Japanese, with emoji and in Hebrew, at 80 columns as support staff see them: tmux
 * itself says whether a line ran past the edge (a line it had to wrap is two of its rows); words
 * are never lost, and no character is cut in half (no U+FFFD).
 */

const FAMILY = '👨\u200d👩\u200d👧'
const CJK =
  '請求書1043 十一月のコンサルティング業務の料金です。ご確認のほどよろしくお願いいたします。お支払いはこちらのリンクからどうぞ'
const EMOJI = `🎉 Party for the team 🎉 ${FAMILY} family day with cake and games for everyone in the office 🎉`
const RTL = 'חשבונית עבור שירותי ייעוץ בנובמבר ובדצמבר לפי ההסכם שנחתם בין הצדדים בתחילת השנה'

let sandbox: TestSandbox
const links: Record<string, Json> = {}

beforeAll(async () => {
  sandbox = await startTestSandbox()
  // Titles longer than the service takes today (50 characters), as a service may still hold them.
  links.cjk = await seedHeldLink(sandbox, { title: CJK, email: '李小龍@example.com' })
  links.emoji = await seedHeldLink(sandbox, { title: EMOJI })
  links.rtl = await seedHeldLink(sandbox, { title: RTL })
})

afterAll(async () => {
  await closeTerminals()
  await sandbox.close()
})

const NO_COLOR = { NO_COLOR: '1' }

/** The words of a text, as a reader finds them: spaces and line ends are all one. */
const words = (text: string) => text.split(/\s+/).filter(Boolean)

describe.concurrent('wide text at 80 columns', () => {
  test('links get of a CJK title: wrapped between characters, within 80 columns, nothing lost', async (context) => {
    const term = await startTestTerminal(context, ['links', 'get', links.cjk._id, '--columns', 'title'], {
      env: { ...sandbox.env, ...NO_COLOR },
    })
    expect(await term.exitCode()).toBe(0)
    const rows = await term.rows()
    // Each row is one line pay wrote: tmux had nothing to wrap.
    expect((await term.screen()).trimEnd().split('\n')).toEqual(rows)
    expect(rows).toEqual([
      'title  請求書1043 十一月のコンサルティング業務の料金です。ご確認のほどよろしくお',
      '       願いいたします。お支払いはこちらのリンクからどうぞ',
    ])
    expect(rows.map((row) => row.slice(7)).join('')).toBe(CJK)
  })

  test('links get of emoji and right-to-left titles: broken at spaces, no word lost', async (context) => {
    const term = await startTestTerminal(
      context,
      ['links', 'get', links.emoji._id, '--columns', 'title,amount'],
      { env: { ...sandbox.env, ...NO_COLOR } },
    )
    expect(await term.exitCode()).toBe(0)
    const rows = await term.rows()
    expect((await term.screen()).trimEnd().split('\n')).toEqual(rows)
    expect(rows).toEqual([
      `title   🎉 Party for the team 🎉 ${FAMILY} family day with cake and games for everyone`,
      '        in the office 🎉',
      'amount  10.00 EUR',
    ])
    expect(
      words(
        rows
          .slice(0, 2)
          .map((row) => row.slice(8))
          .join(' '),
      ),
    ).toEqual(words(EMOJI))
    expect(rows.join('\n')).not.toContain('\ufffd')

    const rtl = await startTestTerminal(context, ['links', 'get', links.rtl._id, '--columns', 'title'], {
      env: { ...sandbox.env, ...NO_COLOR },
    })
    expect(await rtl.exitCode()).toBe(0)
    const rtlRows = await rtl.rows()
    expect((await rtl.screen()).trimEnd().split('\n')).toEqual(rtlRows)
    expect(words(rtlRows.map((row) => row.slice(7)).join(' '))).toEqual(words(RTL))
  })

  test('links list: every row within 80 columns, columns aligned, titles cut by whole characters', async (context) => {
    const term = await startTestTerminal(context, ['links', 'list'], { env: { ...sandbox.env, ...NO_COLOR } })
    expect(await term.exitCode()).toBe(0)
    const rows = await term.rows()
    expect((await term.screen()).trimEnd().split('\n')).toEqual(rows)
    expect(rows).toEqual([
      'ID                        STATUS          AMOUNT     EMAIL         TITLE',
      `${links.rtl._id}  Active, unpaid  10.00 EUR  seed@exampl…  חשבונית עבור…`,
      `${links.emoji._id}  Active, unpaid  10.00 EUR  seed@exampl…  🎉 Party for…`,
      `${links.cjk._id}  Active, unpaid  10.00 EUR  李小龍@exam…  請求書1043…`,
    ])
    expect(rows.join('\n')).not.toContain('\ufffd')
  })
})
