/**
 * The borders between pay's parts (CONTRIBUTING.md, Layout and borders; docs/design.md, Layout), checked by
 * `npm run lint`. Each rule names what must never happen; `npx depcruise src` explains a failure.
 */
const part = (...names) => `^src/(${names.join('|')})/`
/** The leaves the sandbox shares with its client (rule sandbox-shared-are-leaves): any part may import them. */
const SHARED = '^src/sandbox/shared/'

module.exports = {
  forbidden: [
    {
      name: 'api-is-independent',
      comment: 'The API client knows nothing of the screen, the terminal, profiles, the sandbox or the commands.',
      severity: 'error',
      from: { path: part('api') },
      to: { path: part('render', 'cli', 'config', 'sandbox', 'resources', 'bulk', 'commands'), pathNot: SHARED },
    },
    {
      name: 'sandbox-stands-alone',
      comment: 'The service never shares code with its client: the sandbox imports nothing of pay outside src/sandbox.',
      severity: 'error',
      from: { path: part('sandbox') },
      to: { path: '^src/', pathNot: '^src/sandbox/' },
    },
    {
      name: 'sandbox-shared-are-leaves',
      comment:
        'src/sandbox/shared holds the rules the sandbox and its client must follow alike (money.ts: the currency ' +
        'decimals of tables and payment pages; xdg.ts: the XDG directories). Every part may import them (the ' +
        'rules below let it), so they import nothing but each other.',
      severity: 'error',
      from: { path: '^src/sandbox/shared/' },
      to: { path: '^src/', pathNot: '^src/sandbox/shared/' },
    },
    {
      name: 'render-is-the-screen-only',
      comment: 'Rendering knows nothing of profiles, the sandbox, the terminal object, the workflows or the commands.',
      severity: 'error',
      from: { path: part('render') },
      to: { path: part('config', 'sandbox', 'cli', 'resources', 'bulk', 'commands'), pathNot: SHARED },
    },
    {
      name: 'render-uses-api-types-only',
      comment: 'Rendering may name the types of the API client, nothing more.',
      severity: 'error',
      from: { path: part('render') },
      to: { path: part('api'), dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'config-is-independent',
      comment:
        "pay's own files (profiles, keys, the journal) know nothing of the client, the screen, the sandbox or the commands.",
      severity: 'error',
      from: { path: part('config') },
      to: { path: part('api', 'render', 'sandbox', 'cli', 'resources', 'bulk', 'commands'), pathNot: SHARED },
    },
    {
      name: 'leaves-import-nothing',
      comment: 'errors.ts and values.ts are shared by every part, so they import none of it (but the shared leaves).',
      severity: 'error',
      from: { path: '^src/(errors|values)\\.ts$' },
      to: { path: '^src/', pathNot: SHARED },
    },
    {
      name: 'nothing-imports-a-command',
      comment: 'A command is an entry point: what two commands share belongs in a part.',
      severity: 'error',
      from: {},
      to: { path: part('commands') },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'no-dead-modules',
      comment:
        'Every module is reached from an entry point (a command, cli/argv.ts and cli/main.ts, which ' +
        'bin/run.js calls through the bundle, or the library pay-cli/sandbox, sandbox/library.ts); one ' +
        'that is not is dead code.',
      severity: 'error',
      from: { path: [part('commands'), '^src/cli/(argv|main)\\.ts$', '^src/sandbox/library\\.ts$'] },
      to: {
        path: '^src/',
        pathNot: [part('commands'), '^src/cli/(argv|main)\\.ts$', '^src/sandbox/library\\.ts$'],
        reachable: false,
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
}
