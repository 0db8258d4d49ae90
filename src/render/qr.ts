import fs from 'node:fs'
import path from 'node:path'
import QRCode from 'qrcode'

/** Light modules around the code, as the QR standard asks, so that a phone finds its edges. */
const QUIET_ZONE = 4

export type QrImageType = 'png' | 'svg'

/**
 * The QR code of `text` for a terminal, two modules per character (Unicode half blocks).
 * With colour, each cell sets its own black and white, so the code scans on a dark or a light
 * theme alike; without colour (piped, NO_COLOR), a block is a dark module, as on paper.
 */
export function qrLines(text: string, colour: boolean): string[] {
  const { modules } = QRCode.create(text, { errorCorrectionLevel: 'M' })
  const size = modules.size + 2 * QUIET_ZONE
  const dark = (row: number, column: number): boolean => {
    const r = row - QUIET_ZONE
    const c = column - QUIET_ZONE
    return r >= 0 && c >= 0 && r < modules.size && c < modules.size && Boolean(modules.get(r, c))
  }
  const lines: string[] = []
  for (let row = 0; row < size; row += 2) {
    let line = ''
    for (let column = 0; column < size; column++) {
      const top = dark(row, column)
      const bottom = row + 1 < size && dark(row + 1, column)
      line += colour ? colouredCell(top, bottom) : plainCell(top, bottom)
    }
    lines.push(colour ? `${line}\x1b[0m` : line)
  }
  return lines
}

function plainCell(top: boolean, bottom: boolean): string {
  if (top && bottom) return '█'
  if (top) return '▀'
  if (bottom) return '▄'
  return ' '
}

/** An upper half block: its foreground paints the top module, its background the bottom one. */
function colouredCell(top: boolean, bottom: boolean): string {
  const foreground = top ? '30' : '97'
  const background = bottom ? '40' : '107'
  return `\x1b[${foreground};${background}m▀`
}

/** The image type an --output file name asks for, or undefined for another extension. */
export function qrImageType(file: string): QrImageType | undefined {
  const extension = path.extname(file).toLowerCase()
  if (extension === '.png') return 'png'
  if (extension === '.svg') return 'svg'
  return undefined
}

/**
 * Writes the QR code of `text` as a PNG or SVG image. Written beside the file and renamed into
 * place, so a failure half-way leaves no partial image; an existing file is replaced only when
 * `replace` is set (the error's code is then EEXIST).
 */
export async function writeQrImage(file: string, text: string, options: { replace: boolean }): Promise<void> {
  const type = qrImageType(file)
  if (!type) throw new Error(`${file}: not a .png or .svg file name`)
  const image =
    type === 'png'
      ? await QRCode.toBuffer(text, { type: 'png', errorCorrectionLevel: 'M', margin: QUIET_ZONE, scale: 8 })
      : await QRCode.toString(text, { type: 'svg', errorCorrectionLevel: 'M', margin: QUIET_ZONE })
  const partial = `${file}.${process.pid}.partial`
  fs.writeFileSync(partial, image, { flag: 'wx' })
  try {
    if (options.replace) fs.renameSync(partial, file)
    else {
      // link() fails when the name is taken, so no check-then-write race replaces a file.
      fs.linkSync(partial, file)
      fs.rmSync(partial)
    }
  } catch (error) {
    fs.rmSync(partial, { force: true })
    throw error
  }
}

/**
 * Why an image could not be written to `file`, in the user's words and with the user's path:
 * the temporary file beside it is pay's business, not theirs.
 */
export function whyNotWritten(file: string, error: unknown): string {
  const code = (error as NodeJS.ErrnoException)?.code
  const folder = path.dirname(file)
  switch (code) {
    case 'ENOENT':
      return `the folder ${folder} does not exist`
    case 'ENOTDIR':
      return `${folder} is not a folder`
    case 'EACCES':
    case 'EPERM':
      return `permission denied in ${folder}`
    case 'EISDIR':
      return `${file} is a folder`
    case 'ENOSPC':
      return 'no space left on device'
    case 'EDQUOT':
      return 'disk quota exceeded'
    case 'EROFS':
      return `${folder} is on a read-only file system`
    default:
      return code ?? 'it could not be written'
  }
}
