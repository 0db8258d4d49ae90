#!/usr/bin/env node
import module from 'node:module'

// Caches V8's compiled code between runs where the runtime offers it (Node >= 22.1).
module.enableCompileCache?.()

const { moveLeadingGlobalFlags } = await import('../dist/argv.js')
const { run, flush, handle } = await import('@oclif/core')

await run(moveLeadingGlobalFlags(process.argv.slice(2)), import.meta.url)
  .then(() => flush())
  .catch(handle)
