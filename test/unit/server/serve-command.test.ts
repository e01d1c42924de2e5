import { describe, expect, it } from 'vitest'
import { createRunLimiter } from '../../../src/server/run-limiter.ts'
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
})
