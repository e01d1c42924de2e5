import { describe, expect, it } from 'vitest'
import { decideRestart, DEFAULT_RESTART_POLICY, describeRetry } from '../../../src/mcp/restart-policy.ts'

const policy = DEFAULT_RESTART_POLICY
const T = Date.UTC(2026, 11, 1, 20, 0, 0)

describe('when a stopped MCP server is started again (S1.4)', () => {
  it('the defaults are 5 restarts a minute, the README numbers', () => {
    expect(DEFAULT_RESTART_POLICY).toEqual({ maxRestarts: 5, windowMs: 60_000, backoffMs: 1_000, maxBackoffMs: 8_000 })
  })

  it('the first restart waits for nothing; each further one of the minute waits twice as long after the stop: 1, 2, 4, 8 s', () => {
    const waits: number[] = []
    const restarts: number[] = []
    for (let i = 0; i < 5; i++) {
      const decision = decideRestart({ policy, restarts, stoppedAt: T + i, now: T + i })
      expect(decision.kind).toBe('restart')
      waits.push((decision as { waitMs: number }).waitMs)
      restarts.push(T + i)
    }
    expect(waits).toEqual([0, 1_000, 2_000, 4_000, 8_000])
  })

  it('the backoff counts from the stop: a call that comes later waits only what is left of it, or nothing', () => {
    expect(decideRestart({ policy, restarts: [T], stoppedAt: T + 100, now: T + 600 })).toEqual({ kind: 'restart', waitMs: 500 })
    expect(decideRestart({ policy, restarts: [T], stoppedAt: T + 100, now: T + 5_000 })).toEqual({ kind: 'restart', waitMs: 0 })
  })

  it('the backoff stops growing at maxBackoffMs', () => {
    const wide = { ...policy, maxRestarts: 10 }
    const restarts = [T, T + 1, T + 2, T + 3, T + 4, T + 5]
    expect(decideRestart({ policy: wide, restarts, stoppedAt: T + 6, now: T + 6 })).toEqual({ kind: 'restart', waitMs: 8_000 })
  })

  it('past 5 restarts in a minute it refuses until the oldest of them is a minute old, then restarts at once', () => {
    const restarts = [T, T + 10_000, T + 20_000, T + 30_000, T + 40_000]
    expect(decideRestart({ policy, restarts, stoppedAt: T + 45_000, now: T + 45_000 })).toEqual({ kind: 'refuse', retryAt: T + 60_000, recent: 5 })
    expect(decideRestart({ policy, restarts, stoppedAt: T + 45_000, now: T + 59_999 }).kind).toBe('refuse')
    // At T + 60 s the first restart leaves the window: 4 remain, so the backoff is 8 s after the stop, long passed.
    expect(decideRestart({ policy, restarts, stoppedAt: T + 45_000, now: T + 60_000 })).toEqual({ kind: 'restart', waitMs: 0 })
  })

  it('the retry time reads as a UTC clock time and the seconds left', () => {
    expect(describeRetry(T + 42_000, T)).toBe('20:00:42 UTC (in 42 s)')
    expect(describeRetry(T + 100, T)).toBe('20:00:00 UTC (in 1 s)')
  })
})
