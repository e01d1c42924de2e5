/**
 * Type-checking and compiling off the host's event loop (SPEC S9.1; issue 16): a checker worker
 * is stopped at the script's deadline by the host, never waited for, and replaced.
 */
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { CheckerPool } from '../../../src/ptc/check/checker-pool.ts'
import { checkerCrashEnding, checkTimeoutEnding } from '../../../src/ptc/check-endings.ts'
import { DEFAULT_START_TIMEOUT_MS } from '../../../src/ptc/worker-channel.ts'
import { recursiveTypesScript } from '../../fixtures/attack-scripts.ts'
import { NEVER_READY_ENTRY, reachStartLimit } from '../../helpers/never-ready-worker.ts'

const DECLARATIONS = 'declare const tools: { echo(args: { text: string }): Promise<{ text: string }> }\n'

// Worker threads here (cheaper to restart); the Ptc tests cover checker processes end to end.
describe('CheckerPool', () => {
  const pool = new CheckerPool({ kind: 'thread', size: 1 })
  afterAll(() => pool.dispose())

  it('S9.1 a check past its deadline ends timeout while the host keeps turning, and the next script gets a fresh checker', async () => {
    await pool.prewarm()
    const [first] = pool.checkerIds
    const events: string[] = []
    const probe = setInterval(() => events.push('tick'), 20)
    // Half a second is 25 of the probe's ticks; the check burns a core until its deadline.
    const pending = pool.prepare({ code: recursiveTypesScript(), typecheck: true, compile: true }, { declarations: DECLARATIONS, timeoutMs: 500 })
    const { outcome } = await pending.finally(() => {
      clearInterval(probe)
      events.push('check ended')
    })
    expect(outcome).toEqual({ kind: 'timeout' })
    // The probe's timers fired while the check ran: the host's event loop was never blocked.
    expect(events.indexOf('tick')).toBeGreaterThan(-1)
    expect(events.indexOf('tick')).toBeLessThan(events.indexOf('check ended'))

    const next = await pool.prepare({ code: 'const r = await tools.echo({ text: "hi" }); return r.text', typecheck: true, compile: true }, { declarations: DECLARATIONS, timeoutMs: 30_000 })
    expect(next.outcome).toMatchObject({ kind: 'prepared', prepared: { kind: 'compiled' } })
    expect(pool.checkerIds).not.toContain(first)
  }, 60_000)

  it('S9.1 type errors and syntax errors come back as diagnostics in the user coordinates', async () => {
    const typeError = await pool.prepare({ code: 'await tools.echo({ text: 1 })', typecheck: true, compile: true }, { declarations: DECLARATIONS, timeoutMs: 30_000 })
    expect(typeError.outcome).toMatchObject({ kind: 'prepared', prepared: { kind: 'type-error', diagnostics: [{ line: 1, code: 2322, category: 'error' }] } })
    const syntaxError = await pool.prepare({ code: 'return (1', typecheck: false, compile: true }, { declarations: '', timeoutMs: 30_000 })
    expect(syntaxError.outcome).toMatchObject({ kind: 'prepared', prepared: { kind: 'syntax-error', diagnostics: [{ line: 1 }] } })
  }, 60_000)

  it('S9.1 aborting the caller signal stops the check at once and ends it cancelled', async () => {
    const controller = new AbortController()
    await pool.prewarm()
    const [stopped] = pool.checkerIds
    const pending = pool.prepare({ code: recursiveTypesScript(), typecheck: true, compile: true }, { declarations: DECLARATIONS, timeoutMs: 30_000, signal: controller.signal })
    setTimeout(() => controller.abort(), 200)
    expect((await pending).outcome).toEqual({ kind: 'cancelled' })
    // A prewarm right after: the stopped checker leaves the pool only when its exit is seen, and
    // prewarm() once counted it as the pool's one checker and started none, so the next script
    // waited for the replacement's start (two loaded full-suite runs timed out on it).
    await pool.prewarm()
    const ready = pool.checkerIds.filter((id) => id !== stopped)
    expect(ready).toHaveLength(1)
    // Once the stopped one is gone, the pool holds its size: its exit started no second replacement.
    await vi.waitFor(() => expect(pool.checkerIds).not.toContain(stopped), { timeout: 30_000 })
    expect(pool.checkerIds).toEqual(ready)
  }, 60_000)

  it('S9.1 a script waiting for a busy checker spends its own deadline waiting, and ends timeout at it', async () => {
    const order: string[] = []
    // The test before stopped its checker (a cancel): the slow script must find one ready, or on a
    // loaded machine its own deadline runs out waiting for the replacement's start.
    await pool.prewarm()
    // Both deadlines are the host's timers, which fire in the order they are due whatever the
    // load; the slow check burns a core until its own.
    const slow = pool.prepare({ code: recursiveTypesScript(), typecheck: true, compile: true }, { declarations: DECLARATIONS, timeoutMs: 600 }).finally(() => order.push('slow'))
    const queued = pool.prepare({ code: 'return 2', typecheck: true, compile: true }, { declarations: DECLARATIONS, timeoutMs: 300 }).finally(() => order.push('queued'))
    const [first, second] = await Promise.all([slow, queued])
    expect(first.outcome).toEqual({ kind: 'timeout' })
    // Said to have waited: its own types had no part in it (checkTimeoutEnding tells it so).
    expect(second.outcome).toEqual({ kind: 'timeout', waiting: true })
    expect(checkTimeoutEnding(300, true, true).error.message).toBe(
      'The script waited its whole 300 ms deadline (timeoutMs) for a free type checker: every one was busy with other scripts, so it was not checked and no code ran. Run it again, or raise timeoutMs; an operator can add checkers (--checkers, PtcConfig.checkers).',
    )
    // The queued script's deadline ran while it waited: it ended before the slow one freed the checker.
    expect(order).toEqual(['queued', 'slow'])
  }, 60_000)
})

describe('CheckerPool shared by groups (MCP sessions)', () => {
  it('S9.4 one group never holds every checker: its two heavy scripts check one at a time, and another group\'s script is served meanwhile', async () => {
    // Warmed up: TypeScript loaded in both before the scripts come.
    const shared = new CheckerPool({ kind: 'thread', size: 2, warmup: async () => DECLARATIONS })
    try {
      await shared.prewarm()
      const order: string[] = []
      const heavy = (timeoutMs: number) => shared.prepare({ code: recursiveTypesScript(), typecheck: true, compile: true }, { declarations: DECLARATIONS, timeoutMs, group: 'mcp-a' }).finally(() => order.push(`a ${timeoutMs}`))
      const first = heavy(1_500)
      const second = heavy(1_000)
      const other = shared.prepare({ code: 'return 1', typecheck: true, compile: true }, { declarations: DECLARATIONS, timeoutMs: 20_000, group: 'mcp-b' }).finally(() => order.push('b'))
      const [a1, a2, b] = await Promise.all([first, second, other])
      expect(b.outcome).toMatchObject({ kind: 'prepared', prepared: { kind: 'compiled' } })
      // Group a's second script waited behind its first (never in the second checker), so it ended waiting.
      expect(a1.outcome).toEqual({ kind: 'timeout' })
      expect(a2.outcome).toEqual({ kind: 'timeout', waiting: true })
      expect(order[0]).toBe('b')
    } finally {
      shared.dispose()
    }
  }, 60_000)
})

describe('CheckerPool and the process lifetime', () => {
  it("S9.1 the pool's cold start is not charged to the script that waits for it", async () => {
    const cold = new CheckerPool({ kind: 'thread', size: 1, warmup: async () => DECLARATIONS })
    try {
      // Starting TypeScript, parsing its lib files and the declarations takes far longer than 500 ms;
      // checking `return 1` once warm takes a few.
      const { outcome } = await cold.prepare({ code: 'return 1', typecheck: true, compile: true }, { declarations: DECLARATIONS, timeoutMs: 500 })
      expect(outcome).toMatchObject({ kind: 'prepared', prepared: { kind: 'compiled' } })
    } finally {
      cold.dispose()
    }
  }, 60_000)

  it('S9.1 prewarm keeps the process alive until the checkers are ready, and idle checkers never keep it alive', async () => {
    const pool = fileURLToPath(new URL('../../../src/ptc/check/checker-pool.ts', import.meta.url))
    const script = `const { CheckerPool } = await import(${JSON.stringify(pool)}); await new CheckerPool({ size: 1 }).prewarm(); console.log('ready')`
    // Exits by itself (no dispose, no exit call) once ready: nothing is left holding the event loop.
    const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { timeout: 60_000 })
    expect(stdout.trim()).toBe('ready')
  }, 90_000)
})

describe('CheckerPool start-up on a loaded machine (issue 14)', () => {
  const GATED_ENTRY = fileURLToPath(new URL('../../fixtures/gated-worker-entry.ts', import.meta.url))
  const FAILING_ENTRY = fileURLToPath(new URL('../../fixtures/failing-checker-entry.ts', import.meta.url))

  it('S9.1 a checker that starts far slower than the script\'s deadline, but within the start limit, is not killed: the waiting script is served once it is ready', async () => {
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-gate-'))
    const gate = path.join(folder, 'open')
    vi.stubEnv('PTC_TEST_CHECKER_GATE', gate)
    const pool = new CheckerPool({ kind: 'thread', size: 1, entry: GATED_ENTRY, warmup: async () => DECLARATIONS })
    try {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] })
      const order: string[] = []
      const pending = pool.prepare({ code: 'return 1', typecheck: true, compile: true }, { declarations: DECLARATIONS, timeoutMs: 500 }).finally(() => order.push('prepared'))
      const [starting] = pool.checkerIds
      // All but a second of the default start limit passes on every timer the pool set while the checker is still starting.
      vi.advanceTimersByTime(DEFAULT_START_TIMEOUT_MS - 1_000)
      vi.useRealTimers()
      order.push('gate opened')
      fs.writeFileSync(gate, '')
      const { outcome } = await pending
      expect(order).toEqual(['gate opened', 'prepared'])
      expect(outcome).toMatchObject({ kind: 'prepared', prepared: { kind: 'compiled' } })
      // The same checker served it: it was never killed and replaced.
      expect(pool.checkerIds).toEqual([starting])
    } finally {
      vi.useRealTimers()
      vi.unstubAllEnvs()
      pool.dispose()
      fs.rmSync(folder, { recursive: true, force: true })
    }
  }, 60_000)

  it('S9.1 a checker that exits while starting fails the waiting script with a clear "could not start" error', async () => {
    vi.stubEnv('PTC_TEST_CHECKER_GATE', '')
    const pool = new CheckerPool({ kind: 'thread', size: 1, entry: GATED_ENTRY })
    try {
      // An empty gate path: the entry throws before it serves.
      await expect(pool.prepare({ code: 'return 1', typecheck: false, compile: true }, { declarations: '', timeoutMs: 30_000 })).rejects.toThrow(
        /^the type checker could not start \(Error: gated-worker-entry needs PTC_TEST_CHECKER_GATE .+\)\. It wrote nothing on stderr\.$/,
      )
    } finally {
      vi.unstubAllEnvs()
      pool.dispose()
    }
  }, 60_000)

  it('S9.1 a checker process that exits while starting fails the waiting script with the tail of its stderr in the error', async () => {
    vi.stubEnv('PTC_TEST_CHECKER_GATE', '')
    const pool = new CheckerPool({ kind: 'process', size: 1, entry: GATED_ENTRY })
    try {
      // Node prints the entry's uncaught error on the child's stderr and exits 1.
      await expect(pool.prepare({ code: 'return 1', typecheck: false, compile: true }, { declarations: '', timeoutMs: 30_000 })).rejects.toThrow(
        /^the type checker could not start \(exit code 1\)\. Its last stderr: .*gated-worker-entry needs PTC_TEST_CHECKER_GATE/,
      )
    } finally {
      vi.unstubAllEnvs()
      pool.dispose()
    }
  }, 60_000)

  it.each(['process', 'thread'] as const)('S9.1 a %s checker that never becomes ready fails its start at the configured start limit, saying so with its stderr', async (kind) => {
    const pool = new CheckerPool({ kind, size: 1, entry: NEVER_READY_ENTRY, startTimeoutMs: 300 })
    try {
      // The script's own deadline is far away: only the start limit can end this wait.
      const { outcome } = await reachStartLimit(300, () => pool.prepare({ code: 'return 1', typecheck: false, compile: true }, { declarations: '', timeoutMs: 600_000 }))
      await expect(outcome).rejects.toThrow(
        /^the type checker could not start \(it was not ready within 300 ms, the start limit set by PtcConfig\.startTimeoutMs\)\. Its last stderr: never-ready: waiting forever$/,
      )
      expect(pool.checkerIds).toEqual([])
    } finally {
      pool.dispose()
    }
  }, 60_000)

  it.each(['process', 'thread'] as const)('S9.1 a %s checker whose warm-up check fails is reported with that failure and its stderr, not as the kill that follows', async (kind) => {
    const pool = new CheckerPool({ kind, size: 1, entry: FAILING_ENTRY, warmup: async () => DECLARATIONS })
    try {
      await expect(pool.prepare({ code: 'return 1', typecheck: true, compile: true }, { declarations: DECLARATIONS, timeoutMs: 30_000 })).rejects.toThrow(
        /^the type checker could not start \(its warm-up check ended crashed: Error: fixture: cannot check\)\. Its last stderr: failing-checker: the lib files are unreadable$/,
      )
    } finally {
      pool.dispose()
    }
  }, 60_000)

})

describe('CheckerPool crashes', () => {
  it('S9.1 a checker killed from outside mid-check ends the run crashed, and the error is not blamed on the script\'s types', async () => {
    const pool = new CheckerPool({ kind: 'process', size: 1 })
    try {
      await pool.prewarm()
      const [pid] = pool.checkerIds
      const pending = pool.prepare({ code: recursiveTypesScript(), typecheck: true, compile: true }, { declarations: DECLARATIONS, timeoutMs: 30_000 })
      await new Promise((resolve) => setTimeout(resolve, 300))
      process.kill(pid!, 'SIGKILL')
      const { outcome } = await pending
      expect(outcome).toEqual({ kind: 'crashed', message: 'signal SIGKILL' })
      const { error } = checkerCrashEnding((outcome as { message: string }).message, true)
      expect(error.message).toMatch(/^The checker was stopped from outside while type-checking the script \(signal SIGKILL\): .*Run the script again/)
      expect(error.message).not.toMatch(/^Type-checking the script stopped the checker/)
      // What the checker itself died of (its heap limit aborts it, TypeScript threw) is the script's.
      for (const inside of ['signal SIGABRT', 'ERR_WORKER_OUT_OF_MEMORY: Worker terminated due to reaching memory limit: JS heap out of memory']) {
        expect(checkerCrashEnding(inside, true).error.message).toMatch(/^Type-checking the script stopped the checker .*typically from types too large to check/)
      }
      // A stack overflow is said to be the script's nesting or its recursive types.
      expect(checkerCrashEnding('RangeError: Maximum call stack size exceeded', true).error.message).toMatch(/^Type-checking the script overflowed the checker's stack \(RangeError: Maximum call stack size exceeded\): the script nests too deeply .* or its types are deeply recursive; no code ran\. Flatten its deepest nesting or simplify its types\.$/)
      expect(checkerCrashEnding('RangeError: Maximum call stack size exceeded', false).error.message).not.toMatch(/types/)
      // Only a run that type-checked is told to turn type-checking off.
      expect(checkerCrashEnding('signal SIGABRT', false).error.message).toMatch(/^Compiling the script stopped the checker \(signal SIGABRT\); no code ran\. Send a smaller/)
      expect(checkerCrashEnding('signal SIGKILL', false).error.message).not.toMatch(/typecheck: false|types/)
    } finally {
      pool.dispose()
    }
  }, 60_000)
})

describe('CheckerPool and a hostile checker process', () => {
  const HOSTILE_ENTRY = fileURLToPath(new URL('../../fixtures/hostile-checker-entry.ts', import.meta.url))

  it('S9.1 what a checker writes on its channel (bytes that are no frame, Node IPC internals or another unknown message, a second ready, a transform, an unasked answer, a 300 MB frame) stops that checker, never the host; the run is not blamed on its types', async () => {
    const pool = new CheckerPool({ kind: 'process', size: 1, entry: HOSTILE_ENTRY })
    try {
      const seen: Record<string, string> = {}
      // (`null` over the same channel: frames-channel.test.ts.)
      for (const code of ['raw', 'internal', 'ready', 'transform', 'unasked', 'huge']) {
        const { outcome } = await pool.prepare({ code, typecheck: true, compile: true }, { declarations: DECLARATIONS, timeoutMs: 30_000 })
        expect(outcome.kind, code).toBe('crashed')
        seen[code] = (outcome as { message: string }).message
        expect(seen[code], code).toMatch(/^it sent a message that could not be read \(.+\), so it was stopped$/)
        const { error } = checkerCrashEnding(seen[code], true)
        expect(error.message, code).toMatch(/^The checker failed while type-checking the script \(it sent a message .*\); this is not the script's doing, and no code ran\. Run the script again/)
      }
      expect(seen.raw).toMatch(/a frame is not JSON/)
      expect(seen.internal).toMatch(/a checker may not send undefined now/)
      expect(seen.ready).toMatch(/a checker may not send "ready" now/)
      // Only a thread checker has the host run esbuild for it (its own would outlive the thread).
      expect(seen.transform).toMatch(/a checker may not send "transform" now/)
      expect(seen.unasked).toMatch(/a checker answered script \d+, which it was not checking/)
      // A checker's messages are capped far below the channel's 1 GiB.
      expect(seen.huge).toMatch(/than 268435456 bytes together/)
      // Unreachable is the checker's failure too, not the script's.
      expect(checkerCrashEnding('it could not be reached', false).error.message).toMatch(/^The checker failed while compiling the script \(it could not be reached\); .*Run the script again; if it keeps failing/)
    } finally {
      pool.dispose()
    }
  }, 60_000)
})
