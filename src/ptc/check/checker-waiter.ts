/**
 * A script waiting for a free checker (SPEC S9.1, `CheckerPool`): queued in `waiters` until the
 * pool serves it, its caller's signal aborts (`cancelled`), or its deadline passes (`timeout`,
 * counted from `clock.startedAt` once the pool's first checker is ready).
 */
import type { Checker, Clock, Waiter } from './checker-pool-state.ts'
import type { PrepareOptions } from './checker-contract.ts'

/**
 * Queues a waiter for `options` in `waiters` and resolves with the checker the pool hands it
 * (`Waiter.resolve`), or `cancelled` / `timeout`; rejects when the pool rejects it (disposed, or
 * no checker can start). `changed` is called whenever the queue changes (the pool's refs).
 */
export function waitForChecker(waiters: Waiter[], options: PrepareOptions, clock: Clock, changed: () => void): Promise<Checker | 'cancelled' | 'timeout'> {
  const { signal } = options
  return new Promise((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined
    const settled = <T>(settle: (value: T) => void) => (value: T): void => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      settle(value)
    }
    const leave = (why: 'cancelled' | 'timeout'): void => {
      waiters.splice(waiters.indexOf(waiter), 1) // Still queued: a served waiter has no listener or timer.
      changed()
      waiter.resolve(why)
    }
    const onAbort = (): void => leave('cancelled')
    const waiter: Waiter = {
      group: options.group,
      resolve: settled(resolve),
      reject: settled(reject),
      startClock: (now) => {
        const startedAt = (clock.startedAt ??= now)
        timer = setTimeout(() => leave('timeout'), options.timeoutMs - (performance.now() - startedAt))
      },
    }
    signal?.addEventListener('abort', onAbort, { once: true })
    if (clock.startedAt !== undefined) waiter.startClock(clock.startedAt)
    waiters.push(waiter)
    changed()
  })
}
