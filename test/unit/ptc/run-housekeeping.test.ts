/**
 * When the isolate worker cleans up after a run (issue 12, `run-housekeeping.ts`): after a short
 * wait when runs come after pauses (so the host the answer woke finishes first), on the next turn
 * when they come back to back (so the clean-up overlaps the host's turn, not the next run).
 */
import { describe, expect, it } from 'vitest'
import { HOUSEKEEPING_DELAY_MS, RunHousekeeping, STREAM_END_MS } from '../../../src/ptc/isolate/run-housekeeping.ts'

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

describe('RunHousekeeping (issue 12)', () => {
  it('S9.1 the first run, and runs after a pause, are cleaned up after the delay', () => {
    const fake = fakeTimers()
    const housekeeping = new RunHousekeeping(HOUSEKEEPING_DELAY_MS, fake.timers)
    housekeeping.runArrived()
    housekeeping.afterRun(() => {})
    fake.advance(50)
    housekeeping.runArrived()
    housekeeping.afterRun(() => {})
    expect(fake.log).toEqual([`later ${HOUSEKEEPING_DELAY_MS}`, `later ${HOUSEKEEPING_DELAY_MS}`])
  })

  it('S9.1 back-to-back runs stay so while their gaps stay within STREAM_END_MS, though a clean-up at once delays the host a few ms', () => {
    const fake = fakeTimers()
    const housekeeping = new RunHousekeeping(2, fake.timers)
    housekeeping.runArrived()
    housekeeping.afterRun(() => {})
    fake.advance(0.5)
    housekeeping.runArrived() // back to back
    for (let run = 0; run < 3; run++) {
      housekeeping.afterRun(() => fake.advance(2.5))
      fake.advance(5) // the host, slowed by the clean-up, sends the next run 5 ms after it
      housekeeping.runArrived()
    }
    housekeeping.afterRun(() => {})
    fake.advance(STREAM_END_MS + 1)
    housekeeping.runArrived()
    housekeeping.afterRun(() => {})
    expect(fake.log).toEqual(['later 2', 'soon', 'soon', 'soon', 'soon', 'later 2'])
  })

  it('S9.1 a run that came within the delay of the answer before it makes the next clean-up immediate, until runs pause again', () => {
    const fake = fakeTimers()
    const housekeeping = new RunHousekeeping(2, fake.timers)
    housekeeping.runArrived()
    housekeeping.afterRun(() => {})
    fake.advance(0.5)
    housekeeping.runArrived() // back to back
    housekeeping.afterRun(() => {})
    fake.advance(1)
    housekeeping.runArrived() // still back to back
    housekeeping.afterRun(() => {})
    fake.advance(30)
    housekeeping.runArrived() // after a pause
    housekeeping.afterRun(() => {})
    expect(fake.log).toEqual(['later 2', 'soon', 'soon', 'later 2'])
  })

  it('S9.1 a run received only after an immediate clean-up it waited for still counts as back to back', () => {
    const fake = fakeTimers()
    const housekeeping = new RunHousekeeping(2, fake.timers)
    housekeeping.runArrived()
    housekeeping.afterRun(() => {})
    fake.advance(0.5)
    housekeeping.runArrived()
    // The clean-up takes 2.5 ms; the next run's message, sent 0.5 ms after the answer, waits for it.
    housekeeping.afterRun(() => fake.advance(2.5))
    fake.advance(0.1)
    housekeeping.runArrived()
    housekeeping.afterRun(() => {})
    expect(fake.log).toEqual(['later 2', 'soon', 'soon'])
  })

  it('S9.1 a run that came after a delayed clean-up, later than the delay after the answer, is after a pause', () => {
    const fake = fakeTimers()
    const housekeeping = new RunHousekeeping(2, fake.timers)
    housekeeping.runArrived()
    housekeeping.afterRun(() => fake.advance(2.5))
    fake.advance(2)
    fake.fire()
    fake.advance(0.5)
    housekeeping.runArrived() // 5 ms after the answer
    housekeeping.afterRun(() => {})
    expect(fake.log).toEqual(['later 2', 'later 2'])
  })
})
