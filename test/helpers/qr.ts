import fs from 'node:fs'
import jsQRModule from 'jsqr'
import { PNG } from 'pngjs'

// jsqr is CommonJS with an ES default export: Node gives module.exports, TypeScript the namespace.
const jsQR = ((jsQRModule as unknown as { default?: typeof jsQRModule.default }).default ??
  jsQRModule) as unknown as typeof jsQRModule.default

/** Dark (true) and light modules, row by row, as read back from a drawing or an image. */
export type Modules = boolean[][]

/** Reads a QR code the way a phone would: from pixels. Undefined when nothing decodes. */
export function decodeModules(modules: Modules, scale = 6): string | undefined {
  const height = modules.length * scale
  const width = Math.max(...modules.map((row) => row.length)) * scale
  const pixels = new Uint8ClampedArray(width * height * 4).fill(255)
  for (const [r, row] of modules.entries()) {
    for (const [c, dark] of row.entries()) {
      if (!dark) continue
      for (let y = r * scale; y < (r + 1) * scale; y++)
        for (let x = c * scale; x < (c + 1) * scale; x++)
          pixels.fill(0, (y * width + x) * 4, (y * width + x) * 4 + 3)
    }
  }
  return jsQR(pixels, width, height)?.data
}

/** The modules of a plain terminal drawing: a full block is two dark modules, ▀ and ▄ one. */
export function plainDrawingModules(lines: string[]): Modules {
  return lines.flatMap((line) => {
    const cells = [...line]
    return [
      cells.map((cell) => cell === '█' || cell === '▀'),
      cells.map((cell) => cell === '█' || cell === '▄'),
    ]
  })
}

/** The modules of a coloured drawing: each ▀ cell's foreground is its top module, its background the bottom. */
export function colouredDrawingModules(lines: string[]): Modules {
  return lines.flatMap((line) => {
    // biome-ignore lint/suspicious/noControlCharactersInRegex: the SGR sequences of the drawing
    const cells = [...line.matchAll(/\u001b\[(\d+);(\d+)m▀/gu)]
    return [cells.map((cell) => cell[1] === '30'), cells.map((cell) => cell[2] === '40')]
  })
}

export function decodePng(file: string): string | undefined {
  const png = PNG.sync.read(fs.readFileSync(file))
  return jsQR(new Uint8ClampedArray(png.data), png.width, png.height)?.data
}

/**
 * The modules of an SVG written by the qrcode package: one path of horizontal strokes, in the
 * commands M x y (absolute), m dx dy (relative) and h n (a run of n dark modules).
 */
export function svgModules(svg: string): Modules {
  const size = Number(/viewBox="0 0 (\d+) \d+"/.exec(svg)?.[1])
  const path = /<path stroke="#000000" d="([^"]+)"/.exec(svg)?.[1] ?? ''
  const modules: Modules = Array.from({ length: size }, () => Array(size).fill(false))
  let x = 0
  let y = 0
  for (const [, command, a, b] of path.matchAll(/([MmHh])(-?[\d.]+)(?:\s(-?[\d.]+))?/g)) {
    if (command === 'M') [x, y] = [Number(a), Number(b)]
    else if (command === 'm') [x, y] = [x + Number(a), y + Number(b)]
    else {
      for (let i = 0; i < Number(a); i++) modules[Math.floor(y)][x + i] = true
      x += Number(a)
    }
  }
  return modules
}
