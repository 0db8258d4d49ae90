import fs from 'node:fs'
import path from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { PNG } from 'pngjs'

/**
 * A real browser for the customer pages: the system's Chromium (Debian's package `chromium`,
 * installed by .ci/run), driven by playwright-core, which downloads nothing. Without Chromium the
 * browser tests are skipped on a developer's machine, and fail under CI (`CI` set).
 */

export const CHROMIUM = process.env.PAY_TEST_CHROMIUM || '/usr/bin/chromium'
export const chromiumInstalled = fs.existsSync(CHROMIUM)
/** Under CI a missing Chromium is a failure (a test says so), never a silent skip. */
export const chromiumRequired = Boolean(process.env.CI)

export const MISSING_CHROMIUM =
  `Chromium is not installed at ${CHROMIUM}: install the Debian package "chromium" (.ci/run does), ` +
  'or name another binary in PAY_TEST_CHROMIUM.'

/** `args`: more command-line switches, e.g. `--host-resolver-rules=MAP rebind.test 127.0.0.1`. */
export async function launchChromium(args: string[] = []): Promise<Browser> {
  if (!chromiumInstalled) throw new Error(MISSING_CHROMIUM)
  const { chromium } = await import('playwright-core')
  // Chromium's own sandbox needs unprivileged user namespaces, which root, containers and some
  // CI runners lack; these pages are the test's own, on loopback.
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', ...args] })
}

/**
 * Screenshots of a test file, each page once, under `dir` (the test's temp dir); copied to
 * $PAY_SCREENSHOTS_DIR too when it is set, to look at them (`PAY_SCREENSHOTS_DIR=/tmp/pay-screens`).
 */
export class Screenshots {
  readonly taken: string[] = []

  constructor(readonly dir: string) {}

  /** A full-page PNG of `page` as `name.png`; returns its width and height. */
  async take(page: Page, name: string): Promise<{ width: number; height: number; file: string }> {
    const file = path.join(this.dir, `${name}.png`)
    await page.screenshot({ path: file, fullPage: true })
    this.taken.push(file)
    const copies = process.env.PAY_SCREENSHOTS_DIR
    if (copies) {
      fs.mkdirSync(copies, { recursive: true })
      fs.copyFileSync(file, path.join(copies, `${name}.png`))
    }
    const png = PNG.sync.read(fs.readFileSync(file))
    return { width: png.width, height: png.height, file }
  }
}
