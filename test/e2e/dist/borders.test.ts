import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { ROOT, tempDir } from '../../helpers/cli.js'

const run = promisify(execFile)
const DEPCRUISE = path.join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs')

/** A copy of src/ (with the lint's config) where `change` adds imports the borders forbid. */
function copyWith(changes: Record<string, string>): string {
  const dir = tempDir('pay-borders-')
  fs.cpSync(path.join(ROOT, 'src'), path.join(dir, 'src'), { recursive: true })
  for (const file of ['tsconfig.json', '.dependency-cruiser.cjs'])
    fs.copyFileSync(path.join(ROOT, file), path.join(dir, file))
  for (const [file, line] of Object.entries(changes)) {
    const target = path.join(dir, file)
    const before = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : ''
    fs.mkdirSync(path.dirname(target), { recursive: true })
    fs.writeFileSync(target, `${line}\n${before}`)
  }
  return dir
}

/** The rules depcruise reports broken, as "rule: from → to". */
async function violations(dir: string): Promise<string[]> {
  const result = await run(
    process.execPath,
    [DEPCRUISE, 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'],
    {
      cwd: dir,
      maxBuffer: 64 * 1024 * 1024,
    },
  ).catch((error: { stdout: string }) => error)
  const report = JSON.parse(result.stdout)
  return report.summary.violations
    .map((v: { rule: { name: string }; from: string; to: string }) => `${v.rule.name}: ${v.from} → ${v.to}`)
    .sort()
}

describe('the import borders (npm run lint)', () => {
  it('hold in the tree as it is', async () => {
    expect(await violations(copyWith({}))).toEqual([])
  })

  it('fail on each kind of forbidden import', async () => {
    const dir = copyWith({
      'src/api/client.ts': "import '../render/format.js'",
      'src/sandbox/service/records.ts': "import '../../values.js'",
      'src/shared/xdg.ts': "import '../errors.js'",
      'src/render/format.ts':
        "import '../config/profiles.js'\nimport { PayApi } from '../api/client.js'\nexport const client = PayApi",
      'src/config/file.ts': "import '../sandbox/constants.js'",
      'src/runtime/sandbox/profile.ts': "import '../../sandbox/store/store.js'",
      'src/bulk/meta.ts': "import '../config/lock.js'\nimport '../work/links/view.js'",
      'src/agent/planted.ts': "import '../commands/links/get.js'\nimport '../sandbox/index.js'",
      'src/work/links/view.ts': "import '../../commands/links/get.js'\nimport '../../cli/flags.js'",
      'src/work/links/create.ts': "import '../../render/result.js'\nimport '../../sandbox/index.js'",
      'src/runtime/wait.ts': "import '../work/links/view.js'",
      'src/values.ts': "import './errors.js'",
      'src/render/unused.ts': 'export const unused = 1',
    })
    expect(await violations(dir)).toEqual([
      'agent-calls-no-command: src/agent/planted.ts → src/commands/links/get.ts',
      'agent-calls-no-command: src/agent/planted.ts → src/sandbox/index.ts',
      'api-is-independent: src/api/client.ts → src/render/format.ts',
      'bulk-is-an-engine: src/bulk/meta.ts → src/config/lock.ts',
      'bulk-is-an-engine: src/bulk/meta.ts → src/work/links/view.ts',
      'config-is-independent: src/config/file.ts → src/sandbox/constants.ts',
      'leaves-import-nothing: src/values.ts → src/errors.ts',
      'no-circular: src/api/client.ts → src/render/format.ts',
      // The cycle's first step: the command hands its work to the plain function.
      'no-circular: src/commands/links/get.ts → src/work/links/view.ts',
      'no-dead-modules: src/agent/planted.ts → src/agent/planted.ts',
      'no-dead-modules: src/render/unused.ts → src/render/unused.ts',
      'nothing-below-cli-imports-it: src/work/links/view.ts → src/cli/flags.ts',
      'nothing-imports-a-command: src/agent/planted.ts → src/commands/links/get.ts',
      'nothing-imports-a-command: src/work/links/view.ts → src/commands/links/get.ts',
      'only-the-sandbox-users-import-it: src/agent/planted.ts → src/sandbox/index.ts',
      'only-the-sandbox-users-import-it: src/config/file.ts → src/sandbox/constants.ts',
      'only-the-sandbox-users-import-it: src/work/links/create.ts → src/sandbox/index.ts',
      'render-is-the-screen-only: src/render/format.ts → src/config/profiles.ts',
      'render-uses-api-types-only: src/render/format.ts → src/api/client.ts',
      'runtime-is-below-the-parts-that-act: src/runtime/wait.ts → src/work/links/view.ts',
      'sandbox-stands-alone: src/sandbox/service/records.ts → src/values.ts',
      'shared-is-ground: src/shared/xdg.ts → src/errors.ts',
      'the-sandbox-has-one-entry: src/runtime/sandbox/profile.ts → src/sandbox/store/store.ts',
      'work-is-below-its-callers: src/work/links/view.ts → src/cli/flags.ts',
      'work-is-below-its-callers: src/work/links/view.ts → src/commands/links/get.ts',
      'work-returns-data: src/work/links/create.ts → src/render/result.ts',
    ])
  })
})

describe('no cycle between folders (npm run lint: scripts/check-folders.mjs)', () => {
  /** What check-folders.mjs says of the copy `dir`: its exit code and the cycles it names. */
  async function folderCycles(dir: string): Promise<{ code: number; cycles: string[] }> {
    fs.cpSync(path.join(ROOT, 'scripts/check-folders.mjs'), path.join(dir, 'scripts/check-folders.mjs'))
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'))
    const result = await run(process.execPath, [path.join(dir, 'scripts/check-folders.mjs')], {
      cwd: dir,
      maxBuffer: 64 * 1024 * 1024,
    }).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    )
    return { code: result.code, cycles: result.stderr.split('\n').filter((line) => /^src\S*: /.test(line)) }
  }

  it('hold in the tree as it is', async () => {
    expect(await folderCycles(copyWith({}))).toEqual({ code: 0, cycles: [] })
  })

  it('fail on two folders that import each other through different modules', async () => {
    // No module cycle (render/table/width.ts is not imported back), yet render and bulk are one tangle.
    const dir = copyWith({ 'src/render/table/width.ts': "import '../../bulk/csv.js'" })
    expect(await folderCycles(dir)).toEqual({
      code: 1,
      cycles: ['src: the folders bulk, render import one another in a cycle:'],
    })
  })
})
