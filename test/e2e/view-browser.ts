/**
 * Helpers of the `ptc view` browser tests: Debian's Chromium driven by playwright-core (no browser
 * is ever downloaded), and the folder the screenshots go to (git-ignored).
 */
import { existsSync, mkdirSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { chromium, type Browser } from 'playwright-core'

/** The Chromium binary: `PTC_CHROMIUM`, else Debian's. */
export const CHROMIUM = process.env.PTC_CHROMIUM || '/usr/bin/chromium'

/** Where screenshots of the main views are kept (test artifacts, not committed). */
export const ARTIFACTS = fileURLToPath(new URL('../artifacts/', import.meta.url))

/**
 * Launch headless Chromium (`executable`, default {@link CHROMIUM}).
 * @throws Error naming the set-up script when Chromium is not installed (never skipped silently).
 */
export async function launchChromium(executable: string = CHROMIUM): Promise<Browser> {
  if (!existsSync(executable)) {
    throw new Error(`Chromium is not installed at ${executable}, and the ptc view tests need a real browser: run scripts/setup.sh (it installs Debian's chromium package), or set PTC_CHROMIUM to a Chromium binary.`)
  }
  mkdirSync(ARTIFACTS, { recursive: true })
  return chromium.launch({ executablePath: executable, args: ['--no-sandbox'] })
}
