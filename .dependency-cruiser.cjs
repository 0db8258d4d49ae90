/**
 * The borders between pay's parts (CONTRIBUTING.md, Layout and borders; docs/design.md, Layout), checked by
 * `npm run lint`. Each rule names what must never happen; `npx depcruise src` explains a failure.
 */
const part = (...names) => `^src/(${names.join('|')})/`
/** The ground the sandbox and its client both stand on (rule shared-is-ground): any part may import it. */
const SHARED = '^src/shared/'
/** The one module of the sandbox its client may import (rule the-sandbox-has-one-entry). */
const SANDBOX_ENTRY = '^src/sandbox/index\\.ts$'

module.exports = {
  forbidden: [
    {
      name: 'shared-is-ground',
      comment:
        'src/shared holds what the client and the service both use (currency decimals, durations, the XDG and ' +
        'sandbox directories, private files). Every part may import it, so it imports nothing of pay.',
      severity: 'error',
      from: { path: SHARED },
      to: { path: '^src/', pathNot: SHARED },
    },
    {
      name: 'api-is-independent',
      comment: 'The API client knows nothing of the screen, the terminal, profiles, the sandbox or the commands.',
      severity: 'error',
      from: { path: part('api') },
      to: { path: part('render', 'cli', 'config', 'sandbox', 'resources', 'bulk', 'commands') },
    },
    {
      name: 'sandbox-stands-alone',
      comment:
        'The service never shares code with its client: the sandbox imports nothing of pay outside src/sandbox ' +
        'but the ground of src/shared.',
      severity: 'error',
      from: { path: part('sandbox') },
      to: { path: '^src/', pathNot: [part('sandbox'), SHARED] },
    },
    {
      name: 'only-cli-and-commands-import-the-sandbox',
      comment:
        'The in-process sandbox is for `-p sandbox` and the sandbox commands: no other part of the client ' +
        '(render, config, api, resources, bulk, agent, errors.ts, values.ts) imports it.',
      severity: 'error',
      from: { path: '^src/', pathNot: [part('sandbox', 'cli', 'commands')] },
      to: { path: part('sandbox') },
    },
    {
      name: 'the-sandbox-has-one-entry',
      comment:
        'The CLI reaches the sandbox through src/sandbox/index.ts alone (its constants, and lazy loaders of the ' +
        'server and the local store), never its internals.',
      severity: 'error',
      from: { path: part('cli', 'commands') },
      to: { path: part('sandbox'), pathNot: SANDBOX_ENTRY },
    },
    {
      name: 'render-is-the-screen-only',
      comment: 'Rendering knows nothing of profiles, the sandbox, the terminal object, the workflows or the commands.',
      severity: 'error',
      from: { path: part('render') },
      to: { path: part('config', 'sandbox', 'cli', 'resources', 'bulk', 'commands') },
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
      to: { path: part('api', 'render', 'sandbox', 'cli', 'resources', 'bulk', 'commands') },
    },
    {
      name: 'bulk-is-not-config',
      comment:
        "The bulk engine writes its reports through src/shared's private files: it knows nothing of profiles, " +
        'keys or the journal.',
      severity: 'error',
      from: { path: part('bulk') },
      to: { path: part('config') },
    },
    {
      name: 'agent-calls-no-command',
      comment:
        '`pay mcp` (src/agent) calls the plain functions the commands call, never a command, and no sandbox: ' +
        'the sandbox profile reaches it through src/cli.',
      severity: 'error',
      from: { path: part('agent') },
      to: { path: part('commands', 'sandbox') },
    },
    {
      name: 'leaves-import-nothing',
      comment: 'errors.ts and values.ts are shared by every part, so they import none of it (but src/shared).',
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
        'bin/run.js calls through the bundle, cli/completion/complete.ts, which it calls for <TAB>, ' +
        'or the library pay-cli/sandbox, sandbox/library.ts); one that is not is dead code.',
      severity: 'error',
      from: {
        path: [
          part('commands'),
          '^src/cli/(argv|main|completion/complete)\\.ts$',
          '^src/sandbox/library\\.ts$',
        ],
      },
      to: {
        path: '^src/',
        pathNot: [
          part('commands'),
          '^src/cli/(argv|main|completion/complete)\\.ts$',
          '^src/sandbox/library\\.ts$',
        ],
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
