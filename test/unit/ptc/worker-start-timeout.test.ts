import { afterEach, describe, expect, it } from 'vitest'
import { defaultStartTimeoutMs } from '../../../src/ptc/worker-channel.ts'

const configured = process.env.PTC_WORKER_START_TIMEOUT_MS
afterEach(() => {
  if (configured === undefined) delete process.env.PTC_WORKER_START_TIMEOUT_MS
  else process.env.PTC_WORKER_START_TIMEOUT_MS = configured
})

describe('how long an isolate worker may take to start (S9.1)', () => {
  it('is 20 s by default, PTC_WORKER_START_TIMEOUT_MS when that is a positive integer', () => {
    delete process.env.PTC_WORKER_START_TIMEOUT_MS
    expect(defaultStartTimeoutMs()).toBe(20_000)
    process.env.PTC_WORKER_START_TIMEOUT_MS = '120000'
    expect(defaultStartTimeoutMs()).toBe(120_000)
  })

  it('ignores a PTC_WORKER_START_TIMEOUT_MS that is not a positive integer', () => {
    for (const value of ['', '0', '-5', '1.5', 'soon']) {
      process.env.PTC_WORKER_START_TIMEOUT_MS = value
      expect(defaultStartTimeoutMs(), value).toBe(20_000)
    }
  })
})
