#!/usr/bin/env node
// Development entry: rebundles src/ (about a second, no type check) and runs it, so a change
// is picked up without `npm run build`. Run `npm run build` after adding a command (manifest).
import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

execFileSync(process.execPath, [fileURLToPath(new URL('../scripts/bundle.mjs', import.meta.url))], {
  stdio: 'inherit',
})
await import('./run.js')
