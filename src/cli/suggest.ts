/** Edit distance between two words (insertions, deletions, substitutions, swaps of neighbours). */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)])
  for (let j = 1; j <= b.length; j += 1) rows[0][j] = j
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      rows[i][j] = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1)
      }
    }
  }
  return rows[a.length][b.length]
}

/**
 * Words that destroy or undo: a guess never offers one of them over a word that does not at the
 * same distance (`rs` is `ls` before it is `rm`), since a user who runs the guess as shown must
 * not lose data to a typo.
 */
const DESTRUCTIVE = new Set(['delete', 'rm', 'remove', 'reset', 'cancel', 'restore', 'clear', 'force'])

/** The edits a word of this length may be off by and still be taken for a typo. */
const allowed = (word: string) => (word.length <= 3 ? 1 : Math.max(2, Math.floor(word.length / 3)))

/**
 * The candidate a mistyped word most likely meant, if one is close enough to say so: the fewest
 * edits away, a word it begins counting as one edit (`cr` for `create`); at the same distance one
 * it begins (`create` before `qr`), then one that destroys nothing, then the first given (a
 * command's name is given before its aliases).
 */
export function closest(word: string, candidates: string[]): string | undefined {
  const typed = word.toLowerCase()
  const ranked = candidates
    .map((candidate, order) => {
      const lower = candidate.toLowerCase()
      const prefix = typed.length >= 2 && lower.startsWith(typed)
      const edits = distance(typed, lower)
      return {
        candidate,
        order,
        prefix,
        edits: prefix ? Math.min(edits, 1) : edits,
        destroys: DESTRUCTIVE.has(lower),
      }
    })
    .filter((entry) => entry.edits <= allowed(typed))
    .sort(
      (a, b) =>
        a.edits - b.edits ||
        Number(b.prefix) - Number(a.prefix) ||
        Number(a.destroys) - Number(b.destroys) ||
        a.order - b.order,
    )
  return ranked[0]?.candidate
}
