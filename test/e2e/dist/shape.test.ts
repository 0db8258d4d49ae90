import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { ROOT, tempDir } from '../../helpers/cli.js'

const run = promisify(execFile)

/** scripts/check-shape.mjs (in `npm run lint`) on a copy of src/ where `changes` add lines at the top of files. */
async function offences(changes: Record<string, string>): Promise<string[]> {
  const dir = tempDir('pay-shape-')
  fs.cpSync(path.join(ROOT, 'src'), path.join(dir, 'src'), { recursive: true })
  fs.cpSync(path.join(ROOT, 'scripts/check-shape.mjs'), path.join(dir, 'scripts/check-shape.mjs'))
  for (const [file, line] of Object.entries(changes)) {
    const target = path.join(dir, file)
    fs.mkdirSync(path.dirname(target), { recursive: true })
    const before = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : ''
    fs.writeFileSync(target, `${line}\n${before}`)
  }
  const result = await run(process.execPath, [path.join(dir, 'scripts/check-shape.mjs')]).catch(
    (error: { stderr: string }) => error,
  )
  return result.stderr
    .split('\n')
    .filter((line) => line.startsWith('src/') || line.startsWith('src:'))
    .sort()
}

describe('the shape of src (npm run lint)', () => {
  it('holds in the tree as it is', async () => {
    expect(await offences({})).toEqual([])
  })

  it('refuses process.env outside the run context’s one place, and a stream whose write is replaced', async () => {
    expect(
      await offences({
        'src/render/format.ts': 'export const home = process.env.HOME',
        'src/runtime/io.ts': 'process.stdout.write = () => true',
        // Words in a comment are not code.
        'src/runtime/wait.ts': '// process.env and stream.write = are named here only',
        'src/sandbox/constants.ts': 'export const port = process.env.PAY_SANDBOX_PORT',
      }),
    ).toEqual([
      "src/render/format.ts:1: reads process.env (the run's environment is the run context's: env)",
      "src/runtime/io.ts:1: replaces a stream's write (print what was produced instead)",
      "src/sandbox/constants.ts:1: reads process.env (the run's environment is the run context's: env)",
    ])
  })

  it('refuses a folder of more than 16 source files, more than 2 forced casts, and a comment citing an issue', async () => {
    const crowded = Object.fromEntries(
      Array.from({ length: 17 }, (_, n) => [`src/shared/crowd/file-${n}.ts`, `export const n${n} = ${n}`]),
    )
    expect(
      await offences({
        ...crowded,
        'src/shared/money.ts': 'export const a = 1 as unknown as string',
        'src/shared/xdg.ts': 'export const b = 2 as unknown as string',
        'src/shared/duration.ts': 'export const c = 3 as unknown as string',
        'src/values.ts': '// Kept for issue 12: nothing more to say.',
        // A number that is not an issue's passes.
        'src/errors.ts': '// Exit codes 2 and 130, as issues of usage and Ctrl-C.',
      }),
    ).toEqual([
      'src/shared/crowd: 17 source files (at most 16 in a folder: split it by concern)',
      'src/values.ts:1: cites an issue number (say why, not which issue asked)',
      'src: 3 `as unknown as` casts (at most 2 in src): src/shared/duration.ts:1, src/shared/money.ts:1, src/shared/xdg.ts:1',
    ])
  })
})
