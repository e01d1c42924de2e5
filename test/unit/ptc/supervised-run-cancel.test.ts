/**
 * How a run in an isolate worker answers its caller's cancel (S9.1, `supervised-run.ts`): the
 * worker's confirmation, with the run's logs, when it comes in time; else the host's own
 * `cancelled`, after `graceMs` with the worker retired, or after `HELD_CANCEL_MS` when a step may
 * be holding the worker (which reads the cancel only when the step returns; its replacement is
 * then `cancelWhileHeld`'s). Driven with fake timers: outcomes and order, no wall clock.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { IsolateRunResult } from '../../../src/ptc/isolate/isolate-contract.ts'
import { resolveRunLimits } from '../../../src/ptc/isolate/run-limits.ts'
import { HELD_CANCEL_MS, SupervisedRun } from '../../../src/ptc/isolate/supervised-run.ts'

const GRACE_MS = 1_000

beforeEach(() => void vi.useFakeTimers())
afterEach(() => void vi.useRealTimers())

/** A started run whose worker may be held (`held`), its caller's controller, and what it asked its supervisor. */
function startRun(held: boolean) {
  const caller = new AbortController()
  const asked: string[] = []
  const run = new SupervisedRun({
    runId: '1',
    request: { js: 'return 1', toolNames: [], dispatch: async () => ({ ok: true, valueJson: 'null' }), signal: caller.signal },
    limits: resolveRunLimits({ wallClockMs: 60_000 }),
    startedAt: 0,
    graceMs: GRACE_MS,
    hooks: {
      send: (message) => (asked.push(`send ${message.type}`), true),
      answer: () => {},
      retire: (reason) => void asked.push(`retire: ${reason}`),
      cancelWhileHeld: () => held,
      ended: () => void asked.push('ended'),
    },
  })
  run.start()
  return { run, caller, asked }
}

const confirmed: IsolateRunResult = { status: 'cancelled', error: { name: 'CancelledError', message: 'cancelled' }, logs: [{ level: 'log', text: 'before the cancel' }], toolCalls: 0, durationMs: 5 }

describe("a cancel of a run in an isolate worker (S9.1)", () => {
  it('S9.1 a worker a step may hold that confirms within HELD_CANCEL_MS answers with its logs', async () => {
    const { run, caller, asked } = startRun(true)
    caller.abort()
    vi.advanceTimersByTime(HELD_CANCEL_MS / 2)
    run.end(confirmed)
    expect(await run.result).toMatchObject({ status: 'cancelled', logs: [{ text: 'before the cancel' }] })
    expect(asked).toEqual(['send run', 'send cancel', 'ended'])
  })

  it.each([
    { held: true, waitMs: HELD_CANCEL_MS, after: [] as string[], case: 'a worker a step may hold that has not confirmed after HELD_CANCEL_MS: the run is answered then, without logs, and the run does not retire it' },
    { held: false, waitMs: GRACE_MS, after: ['retire: a cancel was not confirmed in time'], case: 'a worker no step holds gets graceMs to confirm, and is retired when it does not' },
  ])('S9.1 $case', async ({ held, waitMs, after }) => {
    const { run, caller, asked } = startRun(held)
    caller.abort()
    vi.advanceTimersByTime(waitMs - 1)
    expect(run.ended).toBe(false)
    vi.advanceTimersByTime(1)
    expect(await run.result).toMatchObject({ status: 'cancelled', logs: [] })
    expect(asked).toEqual(['send run', 'send cancel', 'ended', ...after])
  })
})
