/**
 * Drive a start that never becomes ready to its start limit without depending on the machine's
 * load: the fixture entry marks a file once it has written its stderr line, and only then does
 * the (fake) start-limit timer fire.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { vi } from 'vitest'

/** The fixture entry that writes `never-ready: waiting forever` on stderr and never sends `ready`. */
export const NEVER_READY_ENTRY = fileURLToPath(new URL('../fixtures/never-ready-worker-entry.ts', import.meta.url))

/**
 * Run `start` (which starts a worker from {@link NEVER_READY_ENTRY} with a start limit of
 * `limitMs`) with fake timers, wait until the worker wrote its stderr line, pass `limitMs` on the
 * fake clock, and hand back what `start` returned (its promise, now settling with the real clock).
 */
export async function reachStartLimit<T>(limitMs: number, start: () => Promise<T>): Promise<{ outcome: Promise<T> }> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-never-ready-'))
  const mark = path.join(folder, 'wrote-stderr')
  vi.stubEnv('PTC_TEST_NEVER_READY_MARK', mark)
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
  try {
    const outcome = start()
    outcome.catch(() => {})
    await new Promise<void>((resolve) => {
      const watcher = fs.watch(folder, () => check())
      const check = (): void => {
        if (!fs.existsSync(mark)) return
        watcher.close()
        resolve()
      }
      check()
    })
    vi.advanceTimersByTime(limitMs)
    return { outcome }
  } finally {
    vi.useRealTimers()
    vi.unstubAllEnvs()
    fs.rmSync(folder, { recursive: true, force: true })
  }
}
