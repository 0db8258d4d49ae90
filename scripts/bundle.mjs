#!/usr/bin/env node
/**
 * Builds dist/ for start-up speed (see README, "Performance"):
 *   dist/pay.cjs                one CommonJS bundle: oclif core, got, and every command;
 *   dist/commands/<topic>/<verb>.js   one-line ESM stubs re-exporting a command from the bundle,
 *                               so oclif's pattern discovery, the manifest, help and
 *                               autocomplete see ordinary command files.
 * bin/run.js loads the bundle with a V8 code cache, so most of its parsing and compiling is
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

const entry = [
  "export { run, flush, handle } from '@oclif/core'",
  "export { moveLeadingGlobalFlags } from './src/argv.js'",
  ...commandFiles.map(
    (file, i) => `import command${i} from './src/commands/${file.replace(/\.ts$/, '.js')}'`,
  ),
  `export const commands = { ${commandFiles.map((file, i) => `'${commandId(file)}': command${i}`).join(', ')} }`,
].join('\n')

/**
 * oclif loads command, hook and plugin files with import(). Code compiled by vm.Script (our
 * code-cache loader on Node 20) cannot call import() itself, so those calls go through a
 * function that bin/run.js defines in a real ES module.
 */
const routeDynamicImports = {
  name: 'route-dynamic-imports',
  setup(b) {
    b.onLoad(
      { filter: /@oclif[\\/]core[\\/]lib[\\/](module-loader|config[\\/]ts-path)\.js$/ },
      async (args) => ({
        contents: (await fs.promises.readFile(args.path, 'utf8')).replace(
          /\bawait import\(/g,
          'await __payImport(',
        ),
        loader: 'js',
      }),
    )
  },
}

/** got imports http2-wrapper (and node:http2) at load time but uses it only with `http2: true`. */
const withoutHttp2 = {
  name: 'without-http2',
  setup(b) {
    b.onResolve({ filter: /^http2-wrapper$/ }, () => ({ path: 'http2-wrapper', namespace: 'stub' }))
    b.onLoad({ filter: /.*/, namespace: 'stub' }, () => ({
      contents:
        "const unsupported = () => { throw new Error('HTTP/2 is not included in the pay bundle') }\n" +
        'module.exports = { auto: unsupported, globalAgent: undefined }',
      loader: 'js',
    }))
  },
}

fs.rmSync(outDir, { recursive: true, force: true })
await build({
  stdin: { contents: entry, resolveDir: root, sourcefile: 'pay-entry.ts', loader: 'ts' },
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  outfile: path.join(outDir, 'pay.cjs'),
  // Only reached by oclif's development mode, which a built pay never uses.
  external: ['typescript', 'ts-node', 'tsx'],
  banner: {
    js:
      'var __payImport = globalThis.__payImport ?? ((specifier) => import(specifier));\n' +
      "var __payImportMetaUrl = require('node:url').pathToFileURL(__filename).href;",
  },
  define: { 'import.meta.url': '__payImportMetaUrl' },
  plugins: [routeDynamicImports, withoutHttp2],
  legalComments: 'none',
  logLevel: 'warning',
})

for (const file of commandFiles) {
  const stub = path.join(outDir, 'commands', file.replace(/\.ts$/, '.js'))
  const bundle = path.relative(path.dirname(stub), path.join(outDir, 'pay.cjs')).split(path.sep).join('/')
  fs.mkdirSync(path.dirname(stub), { recursive: true })
  fs.writeFileSync(
    stub,
    "import { createRequire } from 'node:module'\n\n" +
      `export default createRequire(import.meta.url)('${bundle}').commands['${commandId(file)}']\n`,
  )
}
