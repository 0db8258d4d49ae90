#!/usr/bin/env node
/**
 * Builds dist/ for start-up speed (see docs/performance.md):
 *   dist/pay.cjs                one CommonJS bundle: oclif core and every command;
 *   dist/commands/<topic>/<verb>.js   tiny ESM stubs re-exporting a command from the bundle,
 *                               so oclif's pattern discovery, the manifest, help and
 *                               autocomplete see ordinary command files;
 *   dist/sandbox.js             the library `pay-cli/sandbox` (src/sandbox/library.ts), with its
 *                               types in dist/types/ (tsconfig.library.json);
 *   dist/complete.cjs           what shells run on <TAB> (`pay __complete`): the manifest and
 *                               the id cache, none of oclif (bin/run.js loads it alone);
 *   dist/keychain-helper.cjs    the keychain helper, a program of its own that pay runs as a
 *                               child process (src/config/keychain.ts); only it loads the
 *                               native @napi-rs/keyring, from node_modules (never bundled).
 * bin/loader.js loads the bundle with a V8 code cache, so most of its parsing and compiling is
 * skipped from the second run on.
 */
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const outDir = path.resolve(root, process.argv[2] ?? 'dist')
const commandsSrc = path.join(root, 'src/commands')

const commandFiles = fs
  .readdirSync(commandsSrc, { recursive: true })
  .filter((file) => file.endsWith('.ts'))
  .map((file) => file.split(path.sep).join('/'))
  .sort()
const commandId = (file) => file.replace(/\.ts$/, '').replace(/\//g, ':')

// Commands are loaded lazily: running one command initialises only its own modules.
const entry = [
  "export { flush, handle } from '@oclif/core'",
  "export { moveLeadingGlobalFlags } from './src/cli/argv.js'",
  "export { wantsJsonErrors } from './src/cli/command-errors.js'",
  "export { guardOutput } from './src/runtime/io.js'",
  "export { main, processInvocation } from './src/cli/main.js'",
  'export const commands = {',
  // require(), not import(): the bundler makes it a synchronous, lazy initialisation, so
  // oclif loads commands in a fixed order and the manifest comes out the same every time.
  ...commandFiles.map((file) => `  '${commandId(file)}': () => require('./src/commands/${file}').default,`),
  '}',
].join('\n')

// ---------------------------------------------------------------------------------------------
// Patches: source changes to dependencies, for start-up time. Each names the package and the exact
// version it was written for; the build fails when the installed version differs or when a patch
// no longer matches, so that no patch stops applying silently. package.json pins these packages
// (and package-lock.json their dependencies) to those versions.
// ---------------------------------------------------------------------------------------------
const PATCHES = [
  {
    // oclif loads command, hook and plugin files with import(). Code compiled by vm.Script (our
    // code-cache loader on Node 20) cannot call import() itself, so those calls go through a
    // function that bin/loader.js defines in a real ES module.
    package: '@oclif/core',
    version: '4.14.0',
    file: /@oclif[\\/]core[\\/]lib[\\/](module-loader|config[\\/]ts-path)\.js$/,
    from: /\bawait import\(/g,
    to: 'await __payImport(',
  },
  {
    // Sorting command ids with localeCompare costs ~8 ms of ICU set-up on every start; ids are
    // ASCII, so a plain comparison orders them the same.
    package: '@oclif/core',
    version: '4.14.0',
    file: /@oclif[\\/]core[\\/]lib[\\/]config[\\/]plugin\.js$/,
    from: /\.sort\(\(a, b\) => a\.id\.localeCompare\(b\.id\)\)/g,
    to: '.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))',
  },
  {
    // oclif matches every dependency against the plugin names of package.json with minimatch
    // (~2 ms of pattern compiling per start); pay's plugin names hold no glob characters (the
    // "@" of a scope is not one: only "@(", "!(" and "+(" open an extglob).
    package: '@oclif/core',
    version: '4.14.0',
    file: /@oclif[\\/]core[\\/]lib[\\/]config[\\/]plugin-loader\.js$/,
    from: /patterns\.some\(\(w\) => \(0, minimatch_1\.minimatch\)\(p, w\)\)/g,
    to: 'patterns.some((w) => (/[*?[\\]{}]|[@!+]\\(|^!/.test(w) ? (0, minimatch_1.minimatch)(p, w) : p === w))',
  },
  {
    // oclif finds each plugin's root with require.resolve, which reads and matches the
    // package's "exports" (~1 ms per plugin per start). pay's plugins sit in its own
    // node_modules, where npm installs them: that directory is tried first (the package.json
    // read is cached for the plugin's own load); anything else goes the usual way.
    package: '@oclif/core',
    version: '4.14.0',
    file: /@oclif[\\/]core[\\/]lib[\\/]util[\\/]find-root\.js$/,
    from: /async function findRoot\(name, root\) \{\n/g,
    to:
      'async function findRoot(name, root) {\n' +
      '    if (name && root) {\n' +
      "        const direct = (0, node_path_1.join)(root, 'node_modules', name);\n" +
      "        if ((await (0, fs_1.safeReadJson)((0, node_path_1.join)(direct, 'package.json')))?.name === name) return direct;\n" +
      '    }\n',
  },
  {
    // tinyglobby (with fdir and picomatch) finds command files when there is no manifest; pay
    // always has one, so it loads only if a glob is ever needed (~2 ms per start otherwise).
    package: '@oclif/core',
    version: '4.14.0',
    file: /@oclif[\\/]core[\\/]lib[\\/]config[\\/]plugin\.js$/,
    from: /const tinyglobby_1 = require\("tinyglobby"\);/g,
    to: 'const tinyglobby_1 = { get glob() { return require("tinyglobby").glob; } };',
  },
  {
    // node:child_process (~3 ms to load) serves only the WSL check of getShell (autocomplete).
    package: '@oclif/core',
    version: '4.14.0',
    file: /@oclif[\\/]core[\\/]lib[\\/]util[\\/]os\.js$/,
    from: /const node_child_process_1 = require\("node:child_process"\);/g,
    to: 'const node_child_process_1 = { get execSync() { return require("node:child_process").execSync; } };',
  },
  {
    // Config.load asks whether it runs in WSL through wsl-utils, whose module loads
    // node:child_process; its answer is is-wsl's (wsl-utils re-exports it), asked here directly.
    package: '@oclif/core',
    version: '4.14.0',
    file: /@oclif[\\/]core[\\/]lib[\\/]util[\\/]os\.js$/,
    from: /\(await import\('wsl-utils'\)\)\.isWsl \?/g,
    to: "(await import('is-wsl')).default ?",
  },
  {
    // node:perf_hooks serves only oclif's own timing, off unless its performance setting is on.
    package: '@oclif/core',
    version: '4.14.0',
    file: /@oclif[\\/]core[\\/]lib[\\/]performance\.js$/,
    from: /const node_perf_hooks_1 = require\("node:perf_hooks"\);/g,
    to:
      'const node_perf_hooks_1 = { get performance() { return require("node:perf_hooks").performance; }, ' +
      'get PerformanceObserver() { return require("node:perf_hooks").PerformanceObserver; } };',
  },
  {
    // node:readline (~3 ms) serves only arguments and flags read from stdin (allowStdin), which no
    // flag of pay allows.
    package: '@oclif/core',
    version: '4.14.0',
    file: /@oclif[\\/]core[\\/]lib[\\/]parser[\\/]parse\.js$/,
    from: /const node_readline_1 = require\("node:readline"\);/g,
    to: 'const node_readline_1 = { get createInterface() { return require("node:readline").createInterface; } };',
  },
]

/** The version of the installed package that holds `file`. */
function installedVersion(name, file) {
  const marker = `${path.sep}node_modules${path.sep}${name.split('/').join(path.sep)}${path.sep}`
  const root = file.slice(0, file.lastIndexOf(marker) + marker.length)
  return JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version
}

const patchDependencies = {
  name: 'patch-dependencies',
  setup(b) {
    b.onLoad({ filter: /node_modules[\\/].*\.js$/ }, async (args) => {
      const patches = PATCHES.filter((patch) => patch.file.test(args.path))
      if (patches.length === 0) return undefined
      let contents = await fs.promises.readFile(args.path, 'utf8')
      for (const patch of patches) {
        const installed = installedVersion(patch.package, args.path)
        if (installed !== patch.version)
          throw new Error(
            `bundle: a patch targets ${patch.package} ${patch.version}, but ${installed} is installed`,
          )
        if (!patch.from.test(contents))
          throw new Error(`bundle: patch ${patch.from} no longer applies to ${args.path}`)
        contents = contents.replace(patch.from, patch.to)
      }
      return { contents, loader: 'js' }
    })
  },
}

// ---------------------------------------------------------------------------------------------
// Stubs: dependencies pay never calls, replaced by modules that throw if they ever are.
// @inquirer/prompts 7.10.1 re-exports the editor prompt, which brings ~700 KB of character-set
// tables (iconv-lite, chardet).
// ---------------------------------------------------------------------------------------------
const UNUSED = {
  '@inquirer/editor': "module.exports = { __esModule: true, default: unused('the editor prompt') }",
}
/** The packages whose imports the stubs replace, at the versions the list above was made for. */
const STUBBED_FOR = { '@inquirer/prompts': '7.10.1' }
for (const [name, version] of Object.entries(STUBBED_FOR)) {
  const installed = JSON.parse(
    fs.readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8'),
  ).version
  if (installed !== version)
    throw new Error(`bundle: the stubs target ${name} ${version}, but ${installed} is installed`)
}
const withoutUnused = {
  name: 'without-unused',
  setup(b) {
    const filter = new RegExp(`^(${Object.keys(UNUSED).join('|').replace(/\//g, '\\/')})$`)
    b.onResolve({ filter }, (args) => ({ path: args.path, namespace: 'unused' }))
    b.onLoad({ filter: /.*/, namespace: 'unused' }, (args) => ({
      contents:
        "const unused = (what) => function () { throw new Error(what + ' is not included in the pay bundle') }\n" +
        UNUSED[args.path],
      loader: 'js',
    }))
  },
}

// ---------------------------------------------------------------------------------------------
// Build
// ---------------------------------------------------------------------------------------------
fs.rmSync(outDir, { recursive: true, force: true })
const result = await build({
  stdin: { contents: entry, resolveDir: root, sourcefile: 'pay-entry.ts', loader: 'ts' },
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  outfile: path.join(outDir, 'pay.cjs'),
  // typescript, ts-node, tsx: only reached by oclif's development mode, which a built pay never
  // uses. jq-wasm (1.3 MB, most of it the WebAssembly binary in base64): loaded from
  // node_modules by src/render/jq.ts only when --jq is given, so no other run reads or compiles it.
  // libsql: a native module (a prebuilt binary per platform, in packages of its own), loaded
  // from node_modules when the sandbox's store first opens (src/sandbox/store/database.ts), never at start.
  // @napi-rs/keyring: the native keychain module, which only the keychain helper loads (below).
  // @modelcontextprotocol/sdk (and the zod, ajv, express and hono it brings): loaded from
  // node_modules by `pay mcp` alone (src/agent/server.ts), so no other command parses any of it.
  external: [
    'typescript',
    'ts-node',
    'tsx',
    'jq-wasm',
    'libsql',
    '@napi-rs/keyring',
    '@modelcontextprotocol/sdk',
  ],
  banner: {
    js:
      'var __payImport = globalThis.__payImport ?? ((specifier) => import(specifier));\n' +
      "var __payImportMetaUrl = require('node:url').pathToFileURL(__filename).href;",
  },
  define: { 'import.meta.url': '__payImportMetaUrl' },
  plugins: [patchDependencies, withoutUnused],
  legalComments: 'none',
  minifyWhitespace: true,
  minifySyntax: true,
  metafile: true,
  logLevel: 'warning',
})

// The keychain helper: small, so that the child process pay starts for a keychain call starts fast.
// @napi-rs/keyring stays external: it picks its platform's native binary package at run time.
await build({
  stdin: {
    contents: "require('./src/config/keychain-helper.ts').serveOneRequest()",
    resolveDir: root,
    sourcefile: 'keychain-helper-entry.ts',
    loader: 'ts',
  },
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  outfile: path.join(outDir, 'keychain-helper.cjs'),
  external: ['@napi-rs/keyring'],
  legalComments: 'none',
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
})
// The library `pay-cli/sandbox` (src/sandbox/library.ts): the sandbox for a test runner, an ES
// module of its own that loads nothing of the CLI. libsql stays external, as in pay.cjs. Its types
// are emitted next to it by `tsc -p tsconfig.library.json` (package.json's build).
await build({
  entryPoints: [path.join(root, 'src/sandbox/library.ts')],
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  outfile: path.join(outDir, 'sandbox.js'),
  external: ['libsql'],
  legalComments: 'none',
  minifySyntax: true,
  logLevel: 'warning',
})
if (/@oclif|node_modules[\\/]got[\\/]/.test(fs.readFileSync(path.join(outDir, 'sandbox.js'), 'utf8')))
  throw new Error('bundle: dist/sandbox.js holds oclif or got; the library loads nothing of the CLI')

// What only `pay mcp` loads stays out of the bundle that every command parses. (ajv is in it, for
// conf, which src/config/file.ts imports only to write a profile; the SDK requires its own.)
const AGENT_ONLY = /node_modules[\\/](@modelcontextprotocol|zod|express|hono|@hono)[\\/]/
const bundledForAgents = Object.keys(result.metafile.inputs).filter((input) => AGENT_ONLY.test(input))
if (bundledForAgents.length > 0)
  throw new Error(
    `bundle: dist/pay.cjs holds ${bundledForAgents[0]}; only pay mcp loads the MCP SDK, from node_modules`,
  )

// What shells run on <TAB> (`pay __complete`, src/cli/completion/complete.ts): the manifest and the
// id cache, and nothing of oclif, got or the sandbox, so that completing comes back in tens of
// milliseconds. bin/run.js loads it instead of the bundle.
await build({
  entryPoints: [path.join(root, 'src/cli/completion/complete.ts')],
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  outfile: path.join(outDir, 'complete.cjs'),
  // src/shared/crypto.ts and src/config/lock.ts load builtins through createRequire(import.meta.url).
  banner: { js: "var __payImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  define: { 'import.meta.url': '__payImportMetaUrl' },
  legalComments: 'none',
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: 'warning',
})
if (
  /@oclif|node_modules[\\/](got|libsql)[\\/]/.test(fs.readFileSync(path.join(outDir, 'complete.cjs'), 'utf8'))
)
  throw new Error('bundle: dist/complete.cjs holds oclif, got or libsql; completion loads none of them')

// pay itself never loads the native module, not even lazily: a stuck call in it could hold up
// pay's exit (src/config/keychain.ts). Only the helper may name it.
if (fs.readFileSync(path.join(outDir, 'pay.cjs'), 'utf8').includes('@napi-rs/keyring'))
  throw new Error('bundle: dist/pay.cjs requires @napi-rs/keyring; only the keychain helper may')

for (const file of commandFiles) {
  const stub = path.join(outDir, 'commands', file.replace(/\.ts$/, '.js'))
  const bundle = path.relative(path.dirname(stub), path.join(outDir, 'pay.cjs')).split(path.sep).join('/')
  fs.mkdirSync(path.dirname(stub), { recursive: true })
  fs.writeFileSync(
    stub,
    "import { createRequire } from 'node:module'\n\n" +
      `const { commands } = createRequire(import.meta.url)('${bundle}')\n` +
      `export default commands['${commandId(file)}']()\n`,
  )
}

if (process.env.PAY_BUNDLE_META)
  fs.writeFileSync(process.env.PAY_BUNDLE_META, JSON.stringify(result.metafile))
