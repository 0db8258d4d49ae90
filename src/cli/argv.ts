/**
 * oclif takes the first words of argv as the command id, so `pay -p sandbox links list`
 * would look for a command named `-p`. Global flags written before the command are moved
 * after it, where oclif's parser expects them; so are --jq and --jsonl, which are written like
 * --json (`pay --jq '.[]._id' links list`). A command that does not take them says so.
 */
export const GLOBAL_FLAGS_WITH_VALUE = new Set(['-p', '--profile', '--timeout', '--base-url', '--jq'])
export const GLOBAL_BOOLEAN_FLAGS = new Set(['--json', '--debug', '--jsonl'])

export function moveLeadingGlobalFlags(argv: string[]): string[] {
  const leading: string[] = []
  let i = 0
  while (i < argv.length) {
    const arg = argv[i]
    const name = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg
    if (GLOBAL_BOOLEAN_FLAGS.has(arg)) {
      leading.push(arg)
      i += 1
    } else if (GLOBAL_FLAGS_WITH_VALUE.has(name) && arg !== name) {
      leading.push(arg)
      i += 1
    } else if (GLOBAL_FLAGS_WITH_VALUE.has(arg) && i + 1 < argv.length) {
      leading.push(arg, argv[i + 1])
      i += 2
    } else if (/^-p./.test(arg)) {
      leading.push(arg)
      i += 1
    } else {
      break
    }
  }
  if (leading.length === 0 || i === argv.length) return argv
  const rest = argv.slice(i)
  const separator = rest.indexOf('--')
  return separator === -1
    ? [...rest, ...leading]
    : [...rest.slice(0, separator), ...leading, ...rest.slice(separator)]
}

/**
 * The arguments without pay's global flags, for the commands of oclif's plugins (`autocomplete`,
 * `help`), which know none of them: there they are taken, as on every command, and mean nothing.
 */
export function withoutGlobalFlags(argv: string[]): string[] {
  const kept: string[] = []
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i]
    if (arg === '--') return [...kept, ...argv.slice(i)]
    const name = arg.includes('=') ? arg.slice(0, arg.indexOf('=')) : arg
    if (
      GLOBAL_BOOLEAN_FLAGS.has(arg) ||
      (GLOBAL_FLAGS_WITH_VALUE.has(name) && arg !== name) ||
      /^-p./.test(arg)
    )
      continue
    if (GLOBAL_FLAGS_WITH_VALUE.has(arg)) {
      i += 1
      continue
    }
    kept.push(arg)
  }
  return kept
}
