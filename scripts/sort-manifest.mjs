// oclif finds command files with an asynchronous glob, so `oclif manifest` lists commands in
// whatever order the file system answered. Sorting them by id makes every build write the same
// file, which CI compares with the committed one.
import fs from 'node:fs'

const file = new URL('../oclif.manifest.json', import.meta.url)
const manifest = JSON.parse(fs.readFileSync(file, 'utf8'))
const ids = Object.keys(manifest.commands).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
manifest.commands = Object.fromEntries(ids.map((id) => [id, manifest.commands[id]]))
fs.writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`)
