/**
 * The borders between pay's parts (CONTRIBUTING.md, Layout and borders; docs/design.md, Layout), checked by
 * `npm run lint`. Each rule names what must never happen; `npx depcruise src` explains a failure.
 */
const part = (...names) => `^src/(${names.join('|')})/`
/** The ground the sandbox and its client both stand on (rule shared-is-ground): any part may import it. */
const SHARED = '^src/shared/'
/** The one module of the sandbox its client may import (rule the-sandbox-has-one-entry). */
const SANDBOX_ENTRY = '^src/sandbox/index\\.ts$'
/** The parts that use the sandbox: the built-in profile's connection, and the sandbox commands' work. */
const SANDBOX_USERS = ['^src/runtime/sandbox/', '^src/work/sandbox/', '^src/commands/sandbox/']
/** The entry points: a command, pay's entry and completion (bin/run.js), the library pay-cli/sandbox. */
const ENTRIES = [part('commands'), '^src/cli/(argv|main|completion/complete)\\.ts$', '^src/sandbox/library\\.ts$']

module.exports = {
  forbidden: [
    {
      name: 'shared-is-ground',
      comment:
        'src/shared holds what the client and the service both use (the endpoint table, currency decimals, ' +
        'durations, the XDG and sandbox directories, private files). Every part may import it, so it imports ' +
        'nothing of pay.',
      severity: 'error',
      from: { path: SHARED },
      to: { path: '^src/', pathNot: SHARED },
    },
    {
      name: 'nothing-below-cli-imports-it',
      comment:
        'src/cli is the oclif adapter, the top: entry, base command, flags, exit codes, completion. What the ' +
        'parts below need of a run (the context, IO, stop, browser, wait) is src/runtime.',
      severity: 'error',
      from: { path: '^src/', pathNot: [part('cli', 'commands')] },
      to: { path: part('cli') },
    },
    {
      name: 'runtime-is-below-the-parts-that-act',
      comment:
        "A run's context, IO and connection are below every part that acts: the runtime imports no command, " +
        'no work, no bulk workflow, no agent and nothing of the oclif adapter.',
      severity: 'error',
      from: { path: part('runtime') },
      to: { path: part('cli', 'commands', 'work', 'bulk', 'agent') },
    },
    {
      name: 'work-is-below-its-callers',
      comment:
        "Each command's work (src/work/<noun>) is called by its command and by pay mcp: it imports neither, " +
        'nor the oclif adapter.',
      severity: 'error',
      from: { path: part('work') },
      to: { path: part('cli', 'commands', 'agent') },
    },
    {
      name: 'work-returns-data',
      comment:
        'A work function returns data (a record, a walk of a list, a bulk outcome), never presentation: ' +
        'the command renders it with src/render/result.ts, and pay mcp reads the same data.',
      severity: 'error',
      from: { path: part('work') },
      to: { path: '^src/render/result\\.ts$' },
    },
    {
      name: 'api-is-independent',
      comment: 'The API client knows nothing of the screen, the terminal, profiles, the sandbox, runs or commands.',
      severity: 'error',
      from: { path: part('api') },
      to: { path: part('render', 'cli', 'config', 'sandbox', 'runtime', 'work', 'bulk', 'agent', 'commands') },
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
      name: 'only-the-sandbox-users-import-it',
      comment:
        "The in-process sandbox is for `-p sandbox` (src/runtime/sandbox) and the sandbox commands' work: " +
        'no other part of the client (the other nouns, render, config, api, bulk, agent) imports it.',
      severity: 'error',
      from: { path: '^src/', pathNot: [part('sandbox'), ...SANDBOX_USERS] },
      to: { path: part('sandbox') },
    },
    {
      name: 'the-sandbox-has-one-entry',
      comment:
        'The client reaches the sandbox through src/sandbox/index.ts alone (its constants, and lazy loaders of ' +
        'the server and the local store), never its internals.',
      severity: 'error',
      from: { path: SANDBOX_USERS },
      to: { path: part('sandbox'), pathNot: SANDBOX_ENTRY },
    },
    {
      name: 'render-is-the-screen-only',
      comment:
        'Rendering knows nothing of profiles, the sandbox, runs, the workflows, the agent or the commands.',
      severity: 'error',
      from: { path: part('render') },
      to: { path: part('config', 'sandbox', 'cli', 'runtime', 'work', 'bulk', 'agent', 'commands') },
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
        "pay's own files (profiles, keys, the journal) know nothing of the client, the screen, the sandbox, runs or the commands.",
      severity: 'error',
      from: { path: part('config') },
      to: { path: part('api', 'render', 'sandbox', 'cli', 'runtime', 'work', 'bulk', 'agent', 'commands') },
    },
    {
      name: 'bulk-is-an-engine',
      comment:
        "The bulk engine runs any workflow by id or by row: it knows nothing of a noun's work, of profiles " +
        "(its reports are src/shared's private files), of the agent or of the oclif adapter.",
      severity: 'error',
      from: { path: part('bulk') },
      to: { path: part('config', 'work', 'agent', 'cli', 'commands') },
    },
    {
      name: 'agent-calls-no-command',
      comment:
        '`pay mcp` (src/agent) calls the plain functions the commands call (src/work), never a command, and no ' +
        "sandbox: the sandbox tools reach it through the sandbox commands' work.",
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
      from: { path: ENTRIES },
      to: { path: '^src/', pathNot: ENTRIES, reachable: false },
    },
    // --- inside src/sandbox: its layers ---
    // domain -> store -> handlers -> http, each importing only the layers before it, under the
    // entries (index.ts, library.ts, local-store.ts, arguments.ts); constants.ts is a leaf any of
    // them may import. The handlers' folders import one another only as SANDBOX_HANDLER_USES says,
    // and the files of handlers/ itself (what a handler is given) none of them. With these, no
    // folder of src/sandbox can import one that imports it back; scripts/check-folders.mjs checks
    // that for every folder. CONTRIBUTING.md, Layout and borders.
    ...(() => {
      const sandbox = (...names) => `^src/sandbox/(${names.join('|')})/`
      const handler = (...names) => `^src/sandbox/handlers/(${names.join('|')})/`
      /** Each handler folder, and the other handler folders it may import (and why). */
      const SANDBOX_HANDLER_USES = {
        service: { uses: ['billing'], why: 'a subscription is answered with its charges (withCharges)' },
        pages: { uses: ['billing'], why: 'the payment page shows the charge a link is for' },
        double: { uses: ['notify'], why: "its WEBHOOK rules name notify's events and what it does to a delivery" },
        billing: { uses: [], why: 'it bills on the store alone' },
        notify: { uses: [], why: 'it writes, attempts and shows notifications on the store alone' },
        account: {
          uses: ['notify'],
          why: "an integration's webhook events are notify's webhook endpoints, its signature key notify's",
        },
      }
      const handlers = Object.keys(SANDBOX_HANDLER_USES)
      return [
        {
          name: 'sandbox-constants-are-a-leaf',
          comment:
            'src/sandbox/constants.ts is what every layer and the CLI may know of the sandbox: it imports nothing.',
          severity: 'error',
          from: { path: '^src/sandbox/constants\\.ts$' },
          to: { path: '^src/' },
        },
        {
          name: 'sandbox-entries-are-on-top',
          comment:
            "The sandbox's entries (index.ts for the CLI, library.ts for pay-cli/sandbox, local-store.ts, " +
            'arguments.ts) stand on its layers; no layer imports them.',
          severity: 'error',
          from: { path: sandbox('domain', 'store', 'handlers', 'http') },
          to: { path: '^src/sandbox/[^/]+\\.ts$', pathNot: '^src/sandbox/constants\\.ts$' },
        },
        {
          name: 'sandbox-domain-is-the-ground',
          comment:
            'The domain (records, rules, answers, businesses, the payment transition) knows no store, handler ' +
            'or http: what the transition needs of the store it names as an interface (PaymentLedger).',
          severity: 'error',
          from: { path: sandbox('domain') },
          to: { path: sandbox('store', 'handlers', 'http') },
        },
        {
          name: 'sandbox-store-is-below-the-handlers',
          comment:
            'The store (the database, its tables and statements, sandbox time) knows no handler and no http.',
          severity: 'error',
          from: { path: sandbox('store') },
          to: { path: sandbox('handlers', 'http') },
        },
        {
          name: 'sandbox-handlers-are-below-http',
          comment:
            'A handler answers in the shapes of domain/answers.ts and takes the context of handlers/context.ts: ' +
            'it imports nothing of http (the server, the routes, the guard).',
          severity: 'error',
          from: { path: sandbox('handlers') },
          to: { path: sandbox('http') },
        },
        {
          name: 'sandbox-handlers-ground-is-below-them',
          comment:
            'The files of handlers/ itself (the context a handler is given, the body reader) import no ' +
            "handler's folder.",
          severity: 'error',
          from: { path: '^src/sandbox/handlers/[^/]+\\.ts$' },
          to: { path: '^src/sandbox/handlers/[^/]+/' },
        },
        ...handlers.map((name) => ({
          name: `sandbox-handlers-${name}`,
          comment:
            `handlers/${name} imports ` +
            (SANDBOX_HANDLER_USES[name].uses.length === 0
              ? 'no other handler'
              : `no other handler but ${SANDBOX_HANDLER_USES[name].uses.join(', ')}`) +
            `: ${SANDBOX_HANDLER_USES[name].why}.`,
          severity: 'error',
          from: { path: handler(name) },
          to: {
            path: '^src/sandbox/handlers/[^/]+/',
            pathNot: handler(name, ...SANDBOX_HANDLER_USES[name].uses),
          },
        })),
        {
          name: 'sandbox-handlers-unlisted',
          comment:
            'A handler folder that SANDBOX_HANDLER_USES does not list imports no other handler folder until it ' +
            'is listed there, with what it may use.',
          severity: 'error',
          from: { path: '^src/sandbox/handlers/([^/]+)/', pathNot: handler(...handlers) },
          to: { path: '^src/sandbox/handlers/[^/]+/', pathNot: '^src/sandbox/handlers/$1/' },
        },
      ]
    })(),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
}
