// Preload (`node --require`) used when GNU time is absent: the process's peak RSS in KB, at exit.
const fs = require('node:fs')

process.on('exit', () => {
  fs.writeFileSync(process.env.BENCH_MAX_RSS_FILE, `${process.resourceUsage().maxRSS}\n`)
})
