#!/usr/bin/env node
import module from 'node:module'

// Builtins through require, not import: an ES import of node:fs builds a facade of all its
// exports, which loads fs's streams on every start (~1.5 ms).
const require = module.createRequire(import.meta.url)
const fs = require('node:fs')
const os = require('node:os')
const path = require('node:path')
const { fileURLToPath } = require('node:url')
const vm = require('node:vm')

const bundle = fileURLToPath(new URL('../dist/pay.cjs', import.meta.url))

// oclif's own engine check loads semver on every start (~5 ms); this one reads package.json's
// "engines" rule, >=20.19, directly.
const [major, minor] = process.versions.node.split('.').map(Number)
if (major < 20 || (major === 20 && minor < 19)) {
  process.emitWarning(`pay needs Node.js 20.19 or later; this is ${process.versions.node}.`)
}
process.env.OCLIF_DISABLE_ENGINE_WARNING = '1'

// The bundle is compiled JavaScript: oclif must never look for TypeScript sources (it would
// under NODE_ENV=development or test).
globalThis.oclif = { ...globalThis.oclif, enableAutoTranspile: false }

// oclif inside the bundle loads command and plugin files through this (see scripts/bundle.mjs).
globalThis.__payImport = (specifier) => import(specifier)

/**
 * Loads dist/pay.cjs with V8's compiled code cached between runs: Node's own compile cache
 * where the runtime has it (22.1+), else a vm.Script code cache kept in the user's cache dir.
 */
function loadBundle() {
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

// `pay links list | head -1`: the reader left, which is not an error.
process.stdout.on('error', (error) => {
  if (error.code === 'EPIPE') process.exit(0)
  throw error
})

const { pay, saveCache } = loadBundle()
await pay
  .run(pay.moveLeadingGlobalFlags(process.argv.slice(2)), import.meta.url)
  .then(() => {
    saveCache?.()
    return pay.flush()
  })
  .catch(pay.handle)
