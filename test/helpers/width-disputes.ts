/**
 * Text that string-width 4 (what cli-table3 0.6.5 measures with) and a terminal measure
 * differently: each with the columns tmux gives it, which src/render/table/width.ts gives it too
 * (test/e2e/cli/width-terminal.test.ts), and string-width 4's count. Why pay draws its tables
 * itself: test/unit/render/table/cli-table3.test.ts, docs/design.md (Dependencies).
 */
export const WIDTH_DISPUTES = [
  // Thai: tone marks and vowels above or below a letter take no column of their own.
  { name: 'Thai', text: 'ที่นี่ ราคา', terminal: 7, stringWidth4: 11 },
  // Hebrew with vowel points (niqqud), Arabic with short vowels (harakat): marks over letters.
  { name: 'pointed Hebrew', text: 'שָׁלוֹם עֲלֵיכֶם', terminal: 10, stringWidth4: 16 },
  { name: 'Arabic with harakat', text: 'مُحَمَّد', terminal: 4, stringWidth4: 8 },
  // An emoji newer than string-width 4's tables (Unicode 14): two columns, as every emoji.
  { name: 'an emoji of Unicode 14', text: 'Melting 🫠 face', terminal: 15, stringWidth4: 14 },
  // A zero-width space, as text pasted from a web page brings.
  { name: 'a zero-width space', text: 'Invoice\u200b1043', terminal: 11, stringWidth4: 12 },
] as const
