#!/usr/bin/env node
// Development entry: rebuilds nothing, but skips the manifest so new commands show up at once.
import { execute } from '@oclif/core'

await execute({ development: true, dir: import.meta.url })
