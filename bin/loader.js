import module from 'node:module'

/**
 * The start-up loader: runs dist/pay.cjs, the esbuild bundle of pay, with V8's compiled code
 * cached between runs.
 *
 * What it buys (README, Performance): the bundle saves oclif's file-by-file module resolution
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
 * Loads the bundle: through Node's own compile cache where the runtime has it (22.1+), else
 * with a vm.Script code cache kept in the user's cache dir. `saveCache` writes a new cache
 * after a successful run, when there was none or V8 rejected it.
 */
export function loadBundle() {
  if (module.enableCompileCache) {
    module.enableCompileCache()
    return { pay: require(bundle) }
  }
  const cacheDir = path.join(process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'pay')
  const source = fs.readFileSync(bundle, 'utf8')
  const stat = fs.statSync(bundle)
  const cacheFile = path.join(
    cacheDir,
    `v8-${process.version}-${process.arch}-${stat.size}-${Math.trunc(stat.mtimeMs)}.bin`,
  )
  let cachedData
  try {
    cachedData = fs.readFileSync(cacheFile)
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
    if (cachedData && !script.cachedDataRejected) return
    try {
      fs.mkdirSync(cacheDir, { recursive: true, mode: 0o700 })
      const temp = `${cacheFile}.${process.pid}.tmp`
      fs.writeFileSync(temp, script.createCachedData())
      fs.renameSync(temp, cacheFile)
    } catch {
      // A read-only home only costs speed.
    }
  }
  return { pay: bundleModule.exports, saveCache }
}
