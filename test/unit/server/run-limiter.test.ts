import { describe, expect, it } from 'vitest'
import { createRunLimiter, resolveRunLimiterLimits, RunRefused } from '../../../src/server/run-limiter.ts'
import { serveRunLimits } from '../../../src/server/serve.ts'

/** A task that settles only when told to. */
function held() {
  let release!: () => void
  const done = new Promise<void>((resolve) => (release = resolve))
  return { task: () => done, release }
}
const never = () => new Promise<never>(() => {})

describe('the run limiter is fair across sessions (S9.4)', () => {
  it('S9.4 one session holding never-settling runs cannot starve another session\'s return 1', async () => {
    const limiter = createRunLimiter({ maxConcurrent: 4 })
    const hog = Array.from({ length: 4 }, () => limiter.run(never, 'hog'))
    const answer = await limiter.run(async () => 1, 'other')
    expect(answer).toBe(1)
    // The hog got its share (half the slots); its other calls still wait.
    expect(limiter.active).toBe(2)
    expect(limiter.pending).toBe(2)
    expect(hog).toHaveLength(4)
  })

  it('S9.4 waiting calls are admitted round-robin across sessions, each session in its own FIFO order', async () => {
    const limiter = createRunLimiter({ maxConcurrent: 1, maxPerSession: 8 })
    const blocker = held()
    const first = limiter.run(blocker.task, 'x')
    const started: string[] = []
    const record = (name: string) => () => Promise.resolve(void started.push(name))
    const queued = [
      limiter.run(record('a1'), 'a'),
      limiter.run(record('a2'), 'a'),
      limiter.run(record('a3'), 'a'),
      limiter.run(record('b1'), 'b'),
      limiter.run(record('b2'), 'b'),
      limiter.run(record('c1'), 'c'),
    ]
    expect(limiter.pending).toBe(6)
    blocker.release()
    await Promise.all([first, ...queued])
    expect(started).toEqual(['a1', 'b1', 'c1', 'a2', 'b2', 'a3'])
  })

  it('S9.4 a session at its running share waits while another session takes the free slot', async () => {
    const limiter = createRunLimiter({ maxConcurrent: 2, maxRunningPerSession: 1 })
    const a1 = held()
    const first = limiter.run(a1.task, 'a')
    const order: string[] = []
    const a2 = limiter.run(async () => void order.push('a2'), 'a')
    const b1 = limiter.run(async () => void order.push('b1'), 'b')
    await b1
    expect(order).toEqual(['b1'])
    a1.release()
    await Promise.all([first, a2])
    expect(order).toEqual(['b1', 'a2'])
  })

  it('S9.4 a call cancelled while it waits leaves the queue and never runs', async () => {
    const limiter = createRunLimiter({ maxConcurrent: 1 })
    const blocker = held()
    const first = limiter.run(blocker.task, 'a')
    const stop = new AbortController()
    let ran = false
    const waiting = limiter.run(async () => void (ran = true), 'b', stop.signal)
    expect(limiter.pending).toBe(1)
    stop.abort(new Error('stopped'))
    await expect(waiting).rejects.toThrow('stopped')
    expect(limiter.pending).toBe(0)
    blocker.release()
    await first
    expect(ran).toBe(false)
  })

  it('S9.4 refuses beyond the session\'s running-and-waiting bound and beyond the queue bound', async () => {
    const limiter = createRunLimiter({ maxConcurrent: 1, maxPerSession: 2, maxQueued: 2 })
    void limiter.run(never, 'a')
    void limiter.run(never, 'a')
    await expect(limiter.run(never, 'a')).rejects.toThrow(/at most 2 per session/)
    void limiter.run(never, 'b')
    await expect(limiter.run(never, 'c')).rejects.toBeInstanceOf(RunRefused)
    await expect(limiter.run(never, 'c')).rejects.toThrow(/at most 2\); try again later/)
  })

  it('S9.4 --max-concurrent-runs derives the per-session defaults; a share above the total is refused', () => {
    expect(resolveRunLimiterLimits()).toEqual({ maxConcurrent: 4, maxRunningPerSession: 2, maxQueued: 64, maxPerSession: 4 })
    expect(resolveRunLimiterLimits(16)).toEqual({ maxConcurrent: 16, maxRunningPerSession: 8, maxQueued: 64, maxPerSession: 16 })
    expect(resolveRunLimiterLimits(1)).toMatchObject({ maxRunningPerSession: 1, maxPerSession: 4 })
    expect(resolveRunLimiterLimits(3)).toMatchObject({ maxRunningPerSession: 1 })
    expect(() => resolveRunLimiterLimits({ maxConcurrent: 2, maxRunningPerSession: 3 })).toThrow(/cannot exceed the run limit/)
    expect(() => resolveRunLimiterLimits({ maxQueued: 0 })).toThrow(/queue limit must be a positive whole number/)
  })

  it('S9.4 over HTTP a session gets half the slots by default; over stdio, its only session gets all of them', () => {
    expect(resolveRunLimiterLimits(serveRunLimits({ transport: 'http', maxConcurrentRuns: 6 }))).toMatchObject({ maxConcurrent: 6, maxRunningPerSession: 3 })
    expect(resolveRunLimiterLimits(serveRunLimits({ transport: 'stdio', maxConcurrentRuns: 6 }))).toMatchObject({ maxConcurrent: 6, maxRunningPerSession: 6 })
    expect(resolveRunLimiterLimits(serveRunLimits({ transport: 'stdio' }))).toMatchObject({ maxConcurrent: 4, maxRunningPerSession: 4 })
    expect(resolveRunLimiterLimits(serveRunLimits({ transport: 'stdio', maxRunningPerSession: 1 }))).toMatchObject({ maxRunningPerSession: 1 })
  })
})
