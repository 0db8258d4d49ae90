import fs from 'node:fs'
import path from 'node:path'
import { openPrivate } from '../../shared/private-file.js'

/**
 * The shells' side of completing ids (complete.ts answers them). oclif's autocomplete plugin
 * completes pay's commands and flags in bash and zsh from scripts it writes into pay's cache dir
 * (`pay autocomplete`); once it has written them, pay adds to each a function that asks `pay
 * __complete ids` first, where the command line is a `links`, `subs` or `sandbox` command, and
 * hands every other word to the plugin's own function. fish, which the plugin does not know, gets
 * a script of pay's own (`pay autocomplete fish`) that asks `pay __complete fish` for everything.
 */

/** The mark of what pay added, so that it is added once however often the hook runs. */
const MARK = '# pay: ids of links and subscriptions'

/** bash: before the plugin's _BIN_autocomplete, the ids where a command takes one. */
const bashIds = (bin: string) => `
${MARK} where a command takes one (\`${bin} __complete\`: read from
# pay's cache of the ids it has shown, no request sent); every other word is oclif's.
_${bin}_complete_ids() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" ids topics=' (links|subs|sandbox) '
  if [[ "$cur" != -* && " \${COMP_WORDS[*]:1:COMP_CWORD-1} " =~ $topics ]] &&
    ids="$(${bin} __complete ids -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)"; then
    local IFS=$'\\n'
    COMPREPLY=($ids)
    return 0
  fi
  _${bin}_autocomplete "$@"
}
complete -F _${bin}_complete_ids ${bin}
`

/** zsh: before the plugin's _BIN, the ids where a command takes one. */
const zshIds = (bin: string) => `
${MARK} where a command takes one (\`${bin} __complete\`: read from
# pay's cache of the ids it has shown, no request sent); every other word is oclif's.
_${bin}_complete_ids() {
  local out
  if [[ \${words[CURRENT]} != -* && " \${words[2,CURRENT-1]} " == *" "(links|subs|sandbox)" "* ]] &&
    out="$(${bin} __complete ids -- "\${(@)words[2,CURRENT]}" 2>/dev/null)"; then
    local -a ids
    ids=(\${(f)out})
    compadd -a ids
    return
  fi
  _${bin} "$@"
}
compdef _${bin}_complete_ids ${bin}
`

/**
 * Adds the id completion to the scripts oclif's plugin wrote in `cacheDir` (its
 * `autocomplete/functions/bash/BIN.bash` and `autocomplete/zsh_setup`), each once; a script that
 * is not there (or not a regular file of the user's) is left alone.
 */
export function addIdCompletion(cacheDir: string, bin: string): void {
  const scripts = [
    [path.join(cacheDir, 'autocomplete', 'functions', 'bash', `${bin}.bash`), bashIds(bin)],
    [path.join(cacheDir, 'autocomplete', 'zsh_setup'), zshIds(bin)],
  ]
  for (const [file, added] of scripts) {
    try {
      if (fs.readFileSync(file, 'utf8').includes(MARK)) continue
      const fd = openPrivate(file, 'append')
      try {
        fs.writeSync(fd, added)
      } finally {
        fs.closeSync(fd)
      }
    } catch {
      // No such script (`autocomplete script` writes none), or one pay must not write through.
    }
  }
}

/** fish: pay's own completion, `pay autocomplete fish > ~/.config/fish/completions/pay.fish`. */
export const fishScript = (
  bin: string,
) => `# Completion of ${bin} for fish, from \`${bin} autocomplete fish\`:
#   ${bin} autocomplete fish > ~/.config/fish/completions/${bin}.fish
# Topics, commands, flags and their values from ${bin}'s manifest, and the ids of links and
# subscriptions ${bin} has shown (\`${bin} __complete\`: read from its cache, no request sent).
function __${bin}_complete
    set -l words (commandline -opc)
    set -e words[1]
    set -l current (commandline -ct)
    set -l found (${bin} __complete fish -- $words "$current" 2>/dev/null)
    switch $status
        case 0
            printf '%s\\n' $found
        case 3
            __fish_complete_path "$current"
    end
end
complete -c ${bin} -f -a '(__${bin}_complete)'
`
