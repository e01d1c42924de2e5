/**
 * Type-checking and compiling off the host's event loop (SPEC S9.1; issue 16): a checker worker
 * is stopped at the script's deadline by the host, never waited for, and replaced.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { CheckerPool } from '../../../src/ptc/check/checker-pool.ts'
import { recursiveTypesScript } from '../../fixtures/attack-scripts.ts'

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
    const pending = pool.prepare({ code: recursiveTypesScript(), typecheck: true, compile: true }, { declarations: DECLARATIONS, timeoutMs: 1_000 })
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
    const pending = pool.prepare({ code: recursiveTypesScript(), typecheck: true, compile: true }, { declarations: DECLARATIONS, timeoutMs: 30_000, signal: controller.signal })
    setTimeout(() => controller.abort(), 200)
    expect((await pending).outcome).toEqual({ kind: 'cancelled' })
  }, 60_000)

  it('S9.1 scripts beyond the pool size wait for a free checker, and that wait is not their deadline', async () => {
    const slow = pool.prepare({ code: recursiveTypesScript(), typecheck: true, compile: true }, { declarations: DECLARATIONS, timeoutMs: 1_000 })
    const queued = pool.prepare({ code: 'return 2', typecheck: true, compile: true }, { declarations: DECLARATIONS, timeoutMs: 30_000 })
    const [first, second] = await Promise.all([slow, queued])
    expect(first.outcome).toEqual({ kind: 'timeout' })
    expect(second.outcome).toMatchObject({ kind: 'prepared', prepared: { kind: 'compiled' } })
    // The queued script's clock started only when a checker took it, after the slow one ended.
    expect(second.startedAt).toBeGreaterThanOrEqual(first.startedAt + first.checkMs)
  }, 60_000)
})
