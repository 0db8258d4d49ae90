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
      'src/sandbox/domain/records.ts': "import '../../values.js'",
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
      'sandbox-stands-alone: src/sandbox/domain/records.ts → src/values.ts',
      'shared-is-ground: src/shared/xdg.ts → src/errors.ts',
      'the-sandbox-has-one-entry: src/runtime/sandbox/profile.ts → src/sandbox/store/store.ts',
      'work-is-below-its-callers: src/work/links/view.ts → src/cli/flags.ts',
      'work-is-below-its-callers: src/work/links/view.ts → src/commands/links/get.ts',
      'work-returns-data: src/work/links/create.ts → src/render/result.ts',
    ])
  })

  it('keep the sandbox in layers: domain, store, handlers, http, under its entries', async () => {
    const dir = copyWith({
      'src/sandbox/constants.ts': "import './domain/records.js'",
      'src/sandbox/http/health.ts': "import '../local-store.js'",
      'src/sandbox/domain/redirect.ts': "import '../store/files.js'",
      'src/sandbox/store/files.ts': "import '../handlers/notify/url.js'",
      'src/sandbox/handlers/pages/html.ts': "import '../../http/reply.js'",
      'src/sandbox/handlers/body.ts': "import './billing/clock.js'",
      'src/sandbox/handlers/service/endpoints.ts': "import '../notify/url.js'",
      'src/sandbox/handlers/pages/templates.ts': "import '../double/webhook-faults.js'",
      'src/sandbox/handlers/double/fixtures.ts': "import '../billing/clock.js'",
      'src/sandbox/handlers/billing/clock.ts': "import '../service/endpoints.js'",
      'src/sandbox/handlers/notify/post.ts': "import '../double/webhook-faults.js'",
      'src/sandbox/handlers/planted/planted.ts': "import '../notify/url.js'",
    })
    expect(await violations(dir)).toEqual([
      'no-dead-modules: src/sandbox/handlers/planted/planted.ts → src/sandbox/handlers/planted/planted.ts',
      'sandbox-constants-are-a-leaf: src/sandbox/constants.ts → src/sandbox/domain/records.ts',
      'sandbox-domain-is-the-ground: src/sandbox/domain/redirect.ts → src/sandbox/store/files.ts',
      'sandbox-entries-are-on-top: src/sandbox/http/health.ts → src/sandbox/local-store.ts',
      'sandbox-handlers-are-below-http: src/sandbox/handlers/pages/html.ts → src/sandbox/http/reply.ts',
      'sandbox-handlers-billing: src/sandbox/handlers/billing/clock.ts → src/sandbox/handlers/service/endpoints.ts',
      'sandbox-handlers-double: src/sandbox/handlers/double/fixtures.ts → src/sandbox/handlers/billing/clock.ts',
      'sandbox-handlers-ground-is-below-them: src/sandbox/handlers/body.ts → src/sandbox/handlers/billing/clock.ts',
      'sandbox-handlers-notify: src/sandbox/handlers/notify/post.ts → src/sandbox/handlers/double/webhook-faults.ts',
      'sandbox-handlers-pages: src/sandbox/handlers/pages/templates.ts → src/sandbox/handlers/double/webhook-faults.ts',
      'sandbox-handlers-service: src/sandbox/handlers/service/endpoints.ts → src/sandbox/handlers/notify/url.ts',
      'sandbox-handlers-unlisted: src/sandbox/handlers/planted/planted.ts → src/sandbox/handlers/notify/url.ts',
      'sandbox-store-is-below-the-handlers: src/sandbox/store/files.ts → src/sandbox/handlers/notify/url.ts',
    ])
  })

  it('find a cycle between folders that neither a module cycle nor a layer shows (scripts/check-folders.mjs)', async () => {
    const check = (dir: string) =>
      run(process.execPath, [path.join(ROOT, 'scripts/check-folders.mjs')], { cwd: dir }).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code: number; stderr: string }) => ({ code: error.code, stderr: error.stderr }),
      )
    // The tree as it is passes: `npm run lint` runs the script on it.
    const dir = copyWith({
      'src/sandbox/domain/left/one.ts': "import '../right/two.js'\nexport const one = 1",
      'src/sandbox/domain/right/two.ts': "import '../left/three.js'\nexport const two = 2",
      'src/sandbox/domain/left/three.ts': 'export const three = 3',
    })
    expect(await check(dir)).toEqual({
      code: 1,
      stderr: [
        'src/sandbox/domain: a cycle between left, right',
        '  left → right: src/sandbox/domain/left/one.ts → src/sandbox/domain/right/two.ts',
        '  right → left: src/sandbox/domain/right/two.ts → src/sandbox/domain/left/three.ts',
        '1 folder cycle offence(s): see scripts/check-folders.mjs.',
        '',
      ].join('\n'),
    })
  })
})
