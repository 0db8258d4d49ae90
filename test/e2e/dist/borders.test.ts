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
      'src/cli/sandbox/profile.ts': "import '../../sandbox/store/store.js'",
      'src/bulk/meta.ts': "import '../config/lock.js'",
      'src/agent/planted.ts': "import '../commands/links/get.js'\nimport '../sandbox/index.js'",
      'src/resources/links.ts': "import '../commands/links/get.js'",
      'src/values.ts': "import './errors.js'",
      'src/render/unused.ts': 'export const unused = 1',
    })
    expect(await violations(dir)).toEqual([
      'agent-calls-no-command: src/agent/planted.ts → src/commands/links/get.ts',
      'agent-calls-no-command: src/agent/planted.ts → src/sandbox/index.ts',
      'api-is-independent: src/api/client.ts → src/render/format.ts',
      'bulk-is-not-config: src/bulk/meta.ts → src/config/lock.ts',
      'config-is-independent: src/config/file.ts → src/sandbox/constants.ts',
      'leaves-import-nothing: src/values.ts → src/errors.ts',
      'no-circular: src/api/client.ts → src/render/format.ts',
      // The cycle's first step: the command hands its work to the plain function (endpoint-runs.ts).
      'no-circular: src/commands/links/get.ts → src/resources/endpoint-runs.ts',
      'no-dead-modules: src/agent/planted.ts → src/agent/planted.ts',
      'no-dead-modules: src/render/unused.ts → src/render/unused.ts',
      'nothing-imports-a-command: src/agent/planted.ts → src/commands/links/get.ts',
      'nothing-imports-a-command: src/resources/links.ts → src/commands/links/get.ts',
      'only-cli-and-commands-import-the-sandbox: src/agent/planted.ts → src/sandbox/index.ts',
      'only-cli-and-commands-import-the-sandbox: src/config/file.ts → src/sandbox/constants.ts',
      'render-is-the-screen-only: src/render/format.ts → src/config/profiles.ts',
      'render-uses-api-types-only: src/render/format.ts → src/api/client.ts',
      'sandbox-stands-alone: src/sandbox/service/records.ts → src/values.ts',
      'shared-is-ground: src/shared/xdg.ts → src/errors.ts',
      'the-sandbox-has-one-entry: src/cli/sandbox/profile.ts → src/sandbox/store/store.ts',
    ])
  })
})
