/**
 * When the isolate worker cleans up after a run (issue 12, `run-housekeeping.ts`): after a short
 * wait when runs come after pauses (so the host the answer woke finishes first), on the next turn
 * when they come back to back (so the clean-up overlaps the host's turn, not the next run).
 */
import { describe, expect, it } from 'vitest'
import { BACK_TO_BACK_MS, HOUSEKEEPING_DELAY_MS, RunHousekeeping, STREAM_END_MS } from '../../../src/ptc/isolate/run-housekeeping.ts'

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
function scenario(delayMs = 2) {
  const fake = fakeTimers()
  const housekeeping = new RunHousekeeping(delayMs, fake.timers)
  const run = (gapMs: number, cleanUpMs = 0) => {
    fake.advance(gapMs)
    housekeeping.runArrived()
    housekeeping.afterRun(() => fake.advance(cleanUpMs))
  }
  return { ...fake, run }
}

describe('RunHousekeeping (issue 12)', () => {
  it('S9.1 the first run, and runs after a pause, are cleaned up after the delay', () => {
    const { run, log } = scenario(HOUSEKEEPING_DELAY_MS)
    run(0)
    run(50)
    expect(log).toEqual([`later ${HOUSEKEEPING_DELAY_MS}`, `later ${HOUSEKEEPING_DELAY_MS}`])
  })

  it('S9.1 a run that came within the delay of the answer before it makes the next clean-up immediate, until runs pause again', () => {
    const { run, log } = scenario()
    run(0)
    run(0.5) // back to back
    run(1) // still back to back
    run(30) // after a pause
    expect(log).toEqual(['later 2', 'soon', 'soon', 'later 2'])
  })

  it('S9.1 back-to-back runs stay so while their gaps stay within STREAM_END_MS, though a clean-up at once delays the host a few ms', () => {
    const { run, log } = scenario()
    run(0)
    run(0.5, 2.5)
    // The host, slowed by each clean-up, sends the next run 5 ms after it.
    for (let index = 0; index < 3; index++) run(5, 2.5)
    run(STREAM_END_MS + 1)
    expect(log).toEqual(['later 2', 'soon', 'soon', 'soon', 'soon', 'later 2'])
  })

  it('S9.1 a run received only after an immediate clean-up it waited for still counts as back to back', () => {
    const { run, log } = scenario()
    run(0)
    // The clean-up takes 2.5 ms; the next run's message, sent 0.5 ms after the answer, waits for it.
    run(0.5, 2.5)
    run(0.1)
    expect(log).toEqual(['later 2', 'soon', 'soon'])
  })

  it('S9.1 a run later than BACK_TO_BACK_MS after the answer, when the delayed clean-up had finished, is after a pause', () => {
    const { run, log, advance, fire } = scenario()
    run(0, 2.5)
    advance(2)
    fire() // the delayed clean-up: 2.5 ms
    run(BACK_TO_BACK_MS - 4.5 + 0.5) // BACK_TO_BACK_MS + 0.5 after the answer
    run(BACK_TO_BACK_MS - 0.5) // sooner: back to back
    expect(log).toEqual(['later 2', 'later 2', 'soon'])
  })
})
