#!/usr/bin/env node
import { loadBundle, runCompletion, runOptions } from './loader.js'

// oclif's own engine check loads semver on every start (~5 ms); this one reads package.json's
// "engines" rule, >=20.19, directly.
const [major, minor] = process.versions.node.split('.').map(Number)
if (major < 20 || (major === 20 && minor < 19)) {
  process.emitWarning(`pay needs Node.js 20.19 or later; this is ${process.versions.node}.`)
}
process.env.OCLIF_DISABLE_ENGINE_WARNING = '1'

if (process.argv[2] === '__complete') {
  // What a shell runs on <TAB>: answered without loading pay.
  runCompletion(process.argv.slice(3))
} else {
  const { pay, saveCache } = loadBundle()
  const args = pay.moveLeadingGlobalFlags(process.argv.slice(2))
  // Output that cannot be written is said as the run's errors are: JSON under --json or --jq.
  pay.guardOutput({ json: pay.wantsJsonErrors(args) })
  // The autocomplete plugin writes scripts that shells source into the cache dir with the umask's
  // modes (0666 under umask 000): its commands run with umask 077.
  if (/^autocomplete(:|$)/.test(args[0] ?? '') && process.platform !== 'win32') process.umask(0o077)
  // pay's own entry: the environment is read there, once; errors of its own are printed by it.
  const ended = await pay.main(args, { ...pay.processInvocation(), config: runOptions() }).catch(pay.handle)
  // As oclif's handle() ends a failed run: at once, with its code.
  if (ended.code !== 0) process.exit(ended.code)
  saveCache?.()
  await pay.flush()
}
