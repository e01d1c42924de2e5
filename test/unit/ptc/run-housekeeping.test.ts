/**
 * When the isolate worker cleans up after a run (issue 12, `run-housekeeping.ts`): after a short
 * wait when runs come after pauses (so the host the answer woke finishes first), on the next turn
 * when they come back to back (so the clean-up overlaps the host's turn, not the next run).
 */
import { describe, expect, it } from 'vitest'
import { BACK_TO_BACK_MS, FULL_GC_EVERY_RUNS, HOUSEKEEPING_DELAY_MS, RunHousekeeping, STREAM_END_MS } from '../../../src/ptc/isolate/run-housekeeping.ts'

/** Timers that log what was asked; `soon` work runs at once, `later` work when `fire()` is called. */
function fakeTimers() {
  const log: string[] = []
  const pending: (() => void)[] = []
  let clock = 0
  return {
    log,
    advance: (ms: number) => (clock += ms),
    fire: () => pending.splice(0).forEach((work) => work()),
    timers: {
      now: () => clock,
      soon: (work: () => void) => {
        log.push('soon')
        work()
      },
      later: (work: () => void, ms: number) => {
        log.push(`later ${ms}`)
        pending.push(work)
      },
    },
  }
}

/**
 * A housekeeping on fake timers; `run(gapMs, cleanUpMs)`: `gapMs` after the last answer (or
 * clean-up), a run arrives and answers, and its clean-up, when it runs, takes `cleanUpMs`.
 */
function scenario(delayMs = 2, gcEveryRuns?: number) {
  const fake = fakeTimers()
  const collect = () => fake.log.push('gc')
  const housekeeping = new RunHousekeeping(delayMs, fake.timers, gcEveryRuns === undefined ? undefined : { collect, everyRuns: gcEveryRuns })
  const run = (gapMs: number, cleanUpMs = 0) => {
    fake.advance(gapMs)
    housekeeping.runArrived()
    housekeeping.afterRun(() => {
      fake.log.push('clean-up')
      fake.advance(cleanUpMs)
    })
  }
  return { ...fake, run }
}

/** The scheduling entries of a log (`later <ms>`, `soon`), without the work that ran. */
const schedule = (log: string[]) => log.filter((entry) => entry !== 'clean-up' && entry !== 'gc')

describe('RunHousekeeping (issue 12)', () => {
  it('S9.1 the first run, and runs after a pause, are cleaned up after the delay', () => {
    const { run, log } = scenario(HOUSEKEEPING_DELAY_MS)
    run(0)
    run(50)
    expect(schedule(log)).toEqual([`later ${HOUSEKEEPING_DELAY_MS}`, `later ${HOUSEKEEPING_DELAY_MS}`])
  })

  it('S9.1 a run that came within the delay of the answer before it makes the next clean-up immediate, until runs pause again', () => {
    const { run, log } = scenario()
    run(0)
    run(0.5) // back to back
    run(1) // still back to back
    run(30) // after a pause
    expect(schedule(log)).toEqual(['later 2', 'soon', 'soon', 'later 2'])
  })

  it('S9.1 back-to-back runs stay so while their gaps stay within STREAM_END_MS, though a clean-up at once delays the host a few ms', () => {
    const { run, log } = scenario()
    run(0)
    run(0.5, 2.5)
    // The host, slowed by each clean-up, sends the next run 5 ms after it.
    for (let index = 0; index < 3; index++) run(5, 2.5)
    run(STREAM_END_MS + 1)
    expect(schedule(log)).toEqual(['later 2', 'soon', 'soon', 'soon', 'soon', 'later 2'])
  })

  it('S9.1 a run received only after an immediate clean-up it waited for still counts as back to back', () => {
    const { run, log } = scenario()
    run(0)
    // The clean-up takes 2.5 ms; the next run's message, sent 0.5 ms after the answer, waits for it.
    run(0.5, 2.5)
    run(0.1)
    expect(schedule(log)).toEqual(['later 2', 'soon', 'soon'])
  })

  it('S9.1 a run later than BACK_TO_BACK_MS after the answer, when the delayed clean-up had finished, is after a pause', () => {
    const { run, log, advance, fire } = scenario()
    run(0, 2.5)
    advance(2)
    fire() // the delayed clean-up: 2.5 ms
    run(BACK_TO_BACK_MS - 4.5 + 0.5) // BACK_TO_BACK_MS + 0.5 after the answer
    run(BACK_TO_BACK_MS - 0.5) // sooner: back to back
    expect(schedule(log)).toEqual(['later 2', 'later 2', 'soon'])
  })

  it('S9.1 every FULL_GC_EVERY_RUNS-th clean-up ends with a full collection of the worker heap, after the clean-up, in either timing', () => {
    const { run, log, fire } = scenario(2, 3)
    run(0) // after a pause: delayed
    fire()
    run(0.5) // back to back: at once
    run(1)
    run(1)
    run(1)
    run(1)
    expect(log.filter((entry) => entry === 'clean-up' || entry === 'gc')).toEqual(['clean-up', 'clean-up', 'clean-up', 'gc', 'clean-up', 'clean-up', 'clean-up', 'gc'])
  })

  it('S9.1 without a collector, clean-ups never collect', () => {
    const { run, log, fire } = scenario(2)
    for (let index = 0; index < FULL_GC_EVERY_RUNS + 1; index++) run(0.5)
    fire() // the first run's delayed clean-up
    expect(log.filter((entry) => entry === 'clean-up')).toHaveLength(FULL_GC_EVERY_RUNS + 1)
    expect(log).not.toContain('gc')
  })

  it('S9.1 a clean-up that throws still counts toward the next collection', () => {
    const fake = fakeTimers()
    let collected = 0
    const housekeeping = new RunHousekeeping(2, fake.timers, { collect: () => collected++, everyRuns: 1 })
    housekeeping.runArrived()
    housekeeping.afterRun(() => {
      throw new Error('dispose failed')
    })
    expect(() => fake.fire()).toThrow('dispose failed')
    expect(collected).toBe(1)
  })
})
