#!/usr/bin/env node
import { loadBundle } from './loader.js'

// oclif's own engine check loads semver on every start (~5 ms); this one reads package.json's
// "engines" rule, >=20.19, directly.
const [major, minor] = process.versions.node.split('.').map(Number)
if (major < 20 || (major === 20 && minor < 19)) {
  process.emitWarning(`pay needs Node.js 20.19 or later; this is ${process.versions.node}.`)
}
process.env.OCLIF_DISABLE_ENGINE_WARNING = '1'

const { pay, saveCache } = loadBundle()
pay.guardOutput()
await pay
  .run(pay.moveLeadingGlobalFlags(process.argv.slice(2)), import.meta.url)
  .then(() => {
    saveCache?.()
    return pay.flush()
  })
  .catch(pay.handle)
