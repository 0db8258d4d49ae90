import fs from 'node:fs'

/** The `code` of a Node or SQLite error (`ENOENT`, `SQLITE_BUSY`), if it has one. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown })?.code
  return typeof code === 'string' ? code : undefined
}

/** `file.suffix`, or `file.suffix.2`, `.3`…: a name nothing has yet, for a file set aside. */
export function freeName(file: string, suffix: string): string {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? `${file}.${suffix}` : `${file}.${suffix}.${n}`
    if (!fs.existsSync(candidate)) return candidate
  }
}
