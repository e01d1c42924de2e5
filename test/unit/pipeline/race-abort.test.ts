/**
 * `raceAbort`, the one way a wait ends on its signal (SPEC S6.3): the work goes on, and its
 * failure after the abort won never becomes an unhandled rejection, which ends a Node process.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { raceAbort } from '../../../src/pipeline/race-abort.ts'

const unhandled: unknown[] = []
const record = (reason: unknown) => void unhandled.push(reason)
process.on('unhandledRejection', record)
afterEach(() => void (unhandled.length = 0))
// This file shares its fork with others (vitest.config.ts): the listener goes with it.
afterAll(() => void process.off('unhandledRejection', record))

/** Past the microtask checkpoint where Node reports unhandled rejections. */
const settleTurn = () => new Promise((resolve) => setTimeout(resolve, 10))

describe('raceAbort', () => {
  it('S6.3 settles as the work does when the signal never aborts', async () => {
    await expect(raceAbort(Promise.resolve(1), new AbortController().signal, () => 'aborted')).resolves.toBe(1)
    await expect(raceAbort(Promise.reject(new Error('failed')), new AbortController().signal, () => 'aborted')).rejects.toThrow('failed')
  })

  it('S6.3 the abort wins, and the work failing afterwards is not an unhandled rejection', async () => {
    const controller = new AbortController()
    const work = Promise.withResolvers<number>()
    const raced = raceAbort(work.promise, controller.signal, () => 'aborted')
    controller.abort()
    work.reject(new Error('late'))
    await expect(raced).resolves.toBe('aborted')
    await settleTurn()
    expect(unhandled).toEqual([])
  })

  it('S6.3 with the signal already aborted, the work failing afterwards is not an unhandled rejection', async () => {
    const controller = new AbortController()
    controller.abort()
    const work = Promise.withResolvers<number>()
    const raced = raceAbort(work.promise, controller.signal, () => 'aborted')
    work.reject(new Error('late'))
    await expect(raced).resolves.toBe('aborted')
    await settleTurn()
    expect(unhandled).toEqual([])
  })
})
