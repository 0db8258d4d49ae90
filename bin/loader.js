import module from 'node:module'

/**
 * The start-up loader: runs dist/pay.cjs, the esbuild bundle of pay, with V8's compiled code
 * cached between runs.
 *
 * What it buys (docs/performance.md): the bundle saves oclif's file-by-file module resolution
 * (~70 ms), and the code cache skips most of V8's parsing and compiling of the bundle's 1 MB
 * (~65 ms on Node 20). Node 22.1+ caches compiled code itself (module.enableCompileCache), so
 * the vm.Script cache below only serves Node 20: it can go when pay's engines start at 22.
 */

// Builtins through require, not import: an ES import of node:fs builds a facade of all its
// exports, which loads fs's streams on every start (~1.5 ms).
const require = module.createRequire(import.meta.url)
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { fileURLToPath } = require('node:url')
const vm = require('node:vm')

const bundle = fileURLToPath(new URL('../dist/pay.cjs', import.meta.url))

// The bundle is compiled JavaScript: oclif must never look for TypeScript sources (it would
// under NODE_ENV=development or test).
globalThis.oclif = { ...globalThis.oclif, enableAutoTranspile: false }

// oclif inside the bundle loads command and plugin files through this (see scripts/bundle.mjs):
// code compiled by vm.Script cannot call import() itself.
globalThis.__payImport = (specifier) => import(specifier)

/**
 * oclif's options for pay: its root, and no user plugins. oclif would otherwise load the plugins
 * a package.json in pay's data dir names, running their code in every pay (a planted file there
 * is code run with the user's keys at hand); pay has no `plugins` command to install them.
 */
export const runOptions = () => ({ root: fileURLToPath(import.meta.url), userPlugins: false })

/**
 * pay's cache dir, where oclif puts it (its autocomplete cache goes there): PAY_CACHE_DIR, on
 * macOS ~/Library/Caches/pay, else $XDG_CACHE_HOME/pay (on Windows %LOCALAPPDATA%\pay), else
 * ~/.cache/pay.
 */
export function cacheDir(env = process.env) {
  if (env.PAY_CACHE_DIR) return env.PAY_CACHE_DIR
  if (process.platform === 'darwin') return path.join(os.homedir(), 'Library', 'Caches', 'pay')
  const base =
    env.XDG_CACHE_HOME ||
    (process.platform === 'win32' && env.LOCALAPPDATA) ||
    path.join(os.homedir(), '.cache')
  return path.join(base, 'pay')
}

/**
 * The cache dir, made 0700 (and tightened to 0700 when it is the user's and looser), so that what
 * is cached there (compiled code pay runs, shell completion scripts shells source) is the user's
 * alone, whatever the umask; undefined when it cannot be used: not a directory, or someone
 * else's (a planted one in a shared XDG_CACHE_HOME). One mkdir and one stat per start.
 */
export function privateCacheDir(env = process.env) {
  const dir = cacheDir(env)
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
    const stat = fs.statSync(dir)
    if (!stat.isDirectory() || (process.getuid && stat.uid !== process.getuid())) return undefined
    if ((stat.mode & 0o077) !== 0) fs.chmodSync(dir, stat.mode & 0o7700)
    return dir
  } catch {
    // A read-only home only costs speed.
    return undefined
  }
}

/** Runs `make` with umask 077: what it creates is the user's alone (where the platform has umasks). */
export function privately(make) {
  if (process.platform === 'win32') return make()
  const before = process.umask(0o077)
  try {
    return make()
  } finally {
    process.umask(before)
  }
}

/**
 * `pay __complete …`, what a shell runs on <TAB> (src/cli/completion/complete.ts, built alone as
 * dist/complete.cjs): answered from the manifest and the id cache, without loading the bundle,
 * so that it comes back in tens of milliseconds; nothing is sent anywhere.
 */
export function runCompletion(argv) {
  const { complete, loadCommandMap } = require(
    fileURLToPath(new URL('../dist/complete.cjs', import.meta.url)),
  )
  const root = fileURLToPath(new URL('..', import.meta.url))
  const { text, code } = complete(argv, process.env, () => loadCommandMap(root))
  process.stdout.write(text)
  process.exitCode = code
}

/**
 * Loads the bundle: through Node's own compile cache where the runtime has it (22.1+), else
 * with a vm.Script code cache, both in pay's private cache dir. `saveCache` writes a new cache
 * after a successful run, when there was none or V8 rejected it.
 */
export function loadBundle() {
  const dir = privateCacheDir()
  if (module.enableCompileCache) {
    // Node's own cache, in pay's dir rather than the shared temp dir Node picks by default; its
    // directories are made now (0700 under this umask), its files 0600 at exit.
    if (dir) privately(() => module.enableCompileCache(path.join(dir, 'compile-cache')))
    return { pay: require(bundle) }
  }
  const source = fs.readFileSync(bundle, 'utf8')
  const stat = fs.statSync(bundle)
  const cacheFile =
    dir &&
    path.join(dir, `v8-${process.version}-${process.arch}-${stat.size}-${Math.trunc(stat.mtimeMs)}.bin`)
  let cachedData
  try {
    if (cacheFile) cachedData = fs.readFileSync(cacheFile)
  } catch {}
  const script = new vm.Script(module.wrap(source), { filename: bundle, cachedData })
  const bundleModule = new module.Module(bundle)
  bundleModule.filename = bundle
  bundleModule.paths = module.Module._nodeModulePaths(path.dirname(bundle))
  // The command stubs require the bundle: they must get this instance, not a second copy.
  module.Module._cache[bundle] = bundleModule
  script
    .runInThisContext()
    .call(
      bundleModule.exports,
      bundleModule.exports,
      module.createRequire(bundle),
      bundleModule,
      bundle,
      path.dirname(bundle),
    )
  bundleModule.loaded = true
  const saveCache = () => {
    if (!cacheFile || (cachedData && !script.cachedDataRejected)) return
    try {
      const temp = `${cacheFile}.${process.pid}.tmp`
      fs.writeFileSync(temp, script.createCachedData(), { mode: 0o600, flag: 'wx' })
      fs.renameSync(temp, cacheFile)
    } catch {
      // A read-only home only costs speed.
    }
  }
  return { pay: bundleModule.exports, saveCache }
}
