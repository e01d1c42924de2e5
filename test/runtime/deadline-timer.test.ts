import { describe, expect, it } from 'vitest'
import { setDeadline } from '../../src/ptc/isolate/deadline-timer.ts'

describe('setDeadline (S9.7)', () => {
  it('S9.7 never calls back before performance.now() reaches the deadline (a plain setTimeout of a fractional delay often fires a fraction of a millisecond early)', async () => {
    const reached = await Promise.all(
      Array.from({ length: 100 }, (_, index) => {
        const at = performance.now() + 2 + (index % 17) * 0.37
        return new Promise<boolean>((resolve) => setDeadline([], at, () => resolve(performance.now() >= at)))
      }),
    )
    expect(reached.filter((onTime) => !onTime)).toEqual([])
  })

  it('S9.7 clearing every handle it pushed cancels it', async () => {
    const timers: NodeJS.Timeout[] = []
    let called = false
    setDeadline(timers, performance.now() + 40, () => (called = true))
    await new Promise((resolve) => setTimeout(resolve, 10))
    for (const timer of timers) clearTimeout(timer)
    await new Promise((resolve) => setTimeout(resolve, 60))
    expect(timers.length).toBeGreaterThan(0)
    expect(called).toBe(false)
  })
})
