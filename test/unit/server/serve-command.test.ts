import { describe, expect, it } from 'vitest'
import { createRunLimiter, RunRefused } from '../../../src/server/run-limiter.ts'
import { serveOptionsFrom } from '../../../src/server/serve-command.ts'

describe('ptc serve flags', () => {
  it('need exactly one transport', () => {
    expect(() => serveOptionsFrom({}, '/w', {})).toThrow(/exactly one of --stdio or --http/)
    expect(() => serveOptionsFrom({ stdio: true, http: true }, '/w', {})).toThrow(/exactly one/)
    expect(() => serveOptionsFrom({ stdio: true, port: '1' }, '/w', {})).toThrow(/--http only/)
  })

  it('take the token from --token, else PTC_SERVE_TOKEN', () => {
    expect(serveOptionsFrom({ http: true }, '/w', { PTC_SERVE_TOKEN: 'env' }).token).toBe('env')
    expect(serveOptionsFrom({ http: true, token: 'flag' }, '/w', { PTC_SERVE_TOKEN: 'env' }).token).toBe('flag')
    expect(serveOptionsFrom({ http: true }, '/w', {})).toEqual({ transport: 'http', host: '127.0.0.1', exposeTools: false, journalDir: '/w/.ptc/journal' })
  })

  it('check numbers', () => {
    expect(serveOptionsFrom({ http: true, port: '0', 'max-concurrent-runs': '2', 'expose-tools': true }, '/w', {})).toMatchObject({ port: 0, maxConcurrentRuns: 2, exposeTools: true })
    expect(() => serveOptionsFrom({ stdio: true, 'max-concurrent-runs': '0' }, '/w', {})).toThrow(/--max-concurrent-runs/)
    expect(serveOptionsFrom({ stdio: true, 'max-queued-runs': '8', 'max-runs-per-session': '2' }, '/w', {})).toMatchObject({ maxQueuedRuns: 8, maxRunsPerSession: 2 })
    expect(() => serveOptionsFrom({ stdio: true, 'max-queued-runs': '0' }, '/w', {})).toThrow(/--max-queued-runs/)
    expect(() => serveOptionsFrom({ stdio: true, 'max-runs-per-session': 'x' }, '/w', {})).toThrow(/--max-runs-per-session/)
    expect(serveOptionsFrom({ http: true, 'session-idle-ms': '60000', 'max-sessions': '5' }, '/w', {})).toMatchObject({ sessionIdleMs: 60_000, maxSessions: 5 })
    expect(() => serveOptionsFrom({ stdio: true, 'max-sessions': '5' }, '/w', {})).toThrow(/apply to --http only/)
  })

  it('S9.4 --max-running-per-session is a whole number no larger than --max-concurrent-runs', () => {
    expect(serveOptionsFrom({ http: true, 'max-concurrent-runs': '8', 'max-running-per-session': '3' }, '/w', {})).toMatchObject({ maxConcurrentRuns: 8, maxRunningPerSession: 3 })
    expect(() => serveOptionsFrom({ http: true, 'max-running-per-session': '5' }, '/w', {})).toThrow(/--max-running-per-session \(5\) cannot exceed --max-concurrent-runs \(4\)/)
    expect(() => serveOptionsFrom({ http: true, 'max-running-per-session': '0' }, '/w', {})).toThrow(/--max-running-per-session takes a whole number/)
  })

  it('S9.4 numbers are decimal digits, and --port is from 0 to 65535, each refusal quoting the text', () => {
    expect(serveOptionsFrom({ http: true, port: '8080', 'max-sessions': '12' }, '/w', {})).toMatchObject({ port: 8080, maxSessions: 12 })
    expect(() => serveOptionsFrom({ http: true, port: '99999' }, '/w', {})).toThrow('--port takes a whole number from 0 to 65535, got "99999".')
    expect(() => serveOptionsFrom({ http: true, port: '0x50' }, '/w', {})).toThrow('--port takes a whole number from 0 to 65535, got "0x50".')
    expect(() => serveOptionsFrom({ http: true, 'max-sessions': '1e3' }, '/w', {})).toThrow('--max-sessions takes a whole number ≥ 1, got "1e3".')
    expect(() => serveOptionsFrom({ http: true, 'session-idle-ms': ' 5' }, '/w', {})).toThrow(/--session-idle-ms takes a whole number ≥ \d+, got " 5"\./)
  })
})

describe('run limiter', () => {
  it('runs at most max tasks at once and queues the rest in order, never failing them', async () => {
    const limiter = createRunLimiter(2)
    const order: string[] = []
    let running = 0
    let peak = 0
    const task = (name: string) => () =>
      new Promise<string>((resolve) => {
        running++
        peak = Math.max(peak, running)
        order.push(name)
        setTimeout(() => {
          running--
          resolve(name)
        }, 20)
      })
    const all = Promise.all(['a', 'b', 'c', 'd'].map((name) => limiter.run(task(name))))
    expect(limiter.active).toBe(2)
    expect(limiter.pending).toBe(2)
    expect(await all).toEqual(['a', 'b', 'c', 'd'])
    expect(peak).toBe(2)
    expect(order).toEqual(['a', 'b', 'c', 'd'])
  })

  it('refuses a limit that is not a positive whole number', () => {
    expect(() => createRunLimiter(0)).toThrow(RangeError)
  })

  it('bounds the queue: beyond maxQueued waiting calls, one more is refused at once without running', async () => {
    const limiter = createRunLimiter({ maxConcurrent: 1, maxQueued: 2, maxPerSession: 100 })
    const gate = Promise.withResolvers<void>()
    let ran = 0
    const task = () => {
      ran++
      return gate.promise
    }
    const admitted = [1, 2, 3].map((n) => limiter.run(task, `s${n}`))
    expect(limiter.pending).toBe(2)
    await expect(limiter.run(task, 's4')).rejects.toThrow(RunRefused)
    await expect(limiter.run(task, 's4')).rejects.toThrow(/has 2 run_code calls waiting .*try again later/)
    gate.resolve()
    await Promise.all(admitted)
    expect(ran).toBe(3)
    await limiter.run(async () => {}, 's4')
  })

  it('caps one session\'s running and waiting calls, so it cannot fill the queue; other sessions still get in', async () => {
    const limiter = createRunLimiter({ maxConcurrent: 2, maxQueued: 10, maxPerSession: 3 })
    const gate = Promise.withResolvers<void>()
    const mine = [1, 2, 3].map(() => limiter.run(() => gate.promise, 'greedy'))
    await expect(limiter.run(() => gate.promise, 'greedy')).rejects.toThrow(/already has 3 run_code calls .*at most 3 per session/)
    const other = limiter.run(async () => 'other', 'polite')
    expect(limiter.pending).toBe(2)
    gate.resolve()
    expect(await other).toBe('other')
    await Promise.all(mine)
    // The share is given back when the calls end.
    expect(await limiter.run(async () => 'again', 'greedy')).toBe('again')
  })

  it('a call cancelled while it waits leaves the queue at once: it never runs and frees its share', async () => {
    const limiter = createRunLimiter({ maxConcurrent: 1, maxQueued: 2, maxPerSession: 2 })
    let release!: () => void
    const blocker = limiter.run(() => new Promise<void>((resolve) => (release = resolve)), 'storm')
    const controller = new AbortController()
    let ran = false
    const waiting = limiter.run(async () => {
      ran = true
    }, 'storm', controller.signal)
    expect(limiter.pending).toBe(1)
    controller.abort(new Error('cancelled by the client'))
    await expect(waiting).rejects.toThrow('cancelled by the client')
    expect(limiter.pending).toBe(0)
    // The session's share is back: a new call is admitted instead of refused.
    const fresh = limiter.run(async () => 'fresh', 'storm')
    release()
    await blocker
    expect(await fresh).toBe('fresh')
    expect(ran).toBe(false)
  })
})
