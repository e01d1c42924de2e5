/**
 * The arithmetic of a run's deadline and its cap note (SPEC S9.7, `src/ptc/run-deadline.ts`);
 * the end-to-end behaviour is in `wall-clock-cap.test.ts`.
 */
import { describe, expect, it } from 'vitest'
import { checkTimeoutEnding, cpuEnding, deadlineEnding, deadlineEndingWithout, unansweredDeadlineEnding } from '../../../src/ptc/isolate/run-endings.ts'
import { runDeadlineMs, withCapNote } from '../../../src/ptc/run-deadline.ts'

describe('runDeadlineMs (S9.7)', () => {
  it('is the asked timeoutMs, else the host default, else 30 s, never over the cap (300 s by default)', () => {
    expect(runDeadlineMs({})).toBe(30_000)
    expect(runDeadlineMs({}, 1_000_000)).toBe(300_000)
    expect(runDeadlineMs({ limits: { wallClockMs: 5_000 } })).toBe(5_000)
    expect(runDeadlineMs({ limits: { wallClockMs: 5_000 } }, 7_000)).toBe(7_000)
    expect(runDeadlineMs({ maxWallClockMs: 1_500 })).toBe(1_500)
    expect(runDeadlineMs({ maxWallClockMs: 1_500 }, 1_500)).toBe(1_500)
  })
})

describe('checkTimeoutEnding (S9.7)', () => {
  it('blames a deadline under a second before the types, and the types of a longer one', () => {
    expect(checkTimeoutEnding(1, true).error!.message).toBe("Type-checking the script used up the run's 1 ms deadline (timeoutMs); the checker was stopped and no code ran. A deadline of 1 ms leaves little time for type-checking, which takes tens to hundreds of ms: raise timeoutMs, or simplify the script's types.")
    expect(checkTimeoutEnding(5, false).error!.message).toMatch(/A deadline of 5 ms leaves little time for compiling, which takes tens to hundreds of ms: raise timeoutMs\.$/)
    expect(checkTimeoutEnding(5_000, true).error!.message).toMatch(/Simplify the script's types \(deeply recursive or very large types\), or raise timeoutMs\.$/)
  })
})

describe('withCapNote (S9.7)', () => {
  const capped = '(timeoutMs 5000 was capped to 400 ms, the most this host allows: maxWallClockMs.)'
  it("notes a capped timeoutMs on the check's deadline ending", () => {
    const { error } = checkTimeoutEnding(400, true)
    expect(withCapNote(error!, 5_000, 400).message).toBe(`${error!.message} ${capped}`)
  })
  it('leaves the CPU limit ending, an uncapped timeoutMs and no timeoutMs alone', () => {
    const { error } = checkTimeoutEnding(400, true)
    expect(withCapNote(error!, 400, 400)).toBe(error)
    expect(withCapNote(error!, undefined, 400)).toBe(error)
    const cpu = cpuEnding(10_000).error!
    expect(withCapNote(cpu, 5_000, 400)).toBe(cpu)
    const unanswered = unansweredDeadlineEnding(400, ['slow']).error!
    expect(withCapNote(unanswered, 5_000, 400).message).toBe(`${unanswered.message} ${capped}`)
  })
})

describe('the watchdog deadline ending (S9.7)', () => {
  it("S9.7 with calls still running it says they may have taken effect; without, it points at the script's own code", () => {
    expect(unansweredDeadlineEnding(400, ['write_file']).error!.message).toMatch(/Still running then: 1 call: write_file\. The call still running was stopped at the deadline and may or may not have taken effect: check before making it again\./)
    expect(unansweredDeadlineEnding(400, []).error!.message).toMatch(/so it was restarted\. No tool call of this run was running: most likely the script's own code kept the worker busy past the deadline .*Look for an endless loop or do less computation in the script\.$/)
  })
})

describe('a deadline ending said again without the calls that only awaited approval (S8.1, S9.7)', () => {
  it("S8.1 S9.7 the watchdog's ending and the isolate's drop those calls from 'still running', one occurrence each", () => {
    const watchdog = unansweredDeadlineEnding(400, ['write_file', 'read_file']).deadline!
    expect(deadlineEndingWithout(watchdog, ['write_file']).error.message).toMatch(/Still running then: 1 call: read_file\. The call still running was stopped at the deadline/)
    expect(deadlineEndingWithout(unansweredDeadlineEnding(400, ['write_file']).deadline!, ['write_file']).error.message).toMatch(/so it was restarted\. No tool call of this run was running: .*do less computation in the script\.$/)
    const isolate = deadlineEnding(1_000, { checkMs: 0, runningMs: 0, cpuMs: 0, toolWaitMs: 900, wallMs: 1_000, toolsRunning: ['guarded', 'guarded'] }).deadline!
    expect(deadlineEndingWithout(isolate, ['guarded']).error.message).toMatch(/waiting on tool calls \(1 call: guarded still running\)/)
  })
})
