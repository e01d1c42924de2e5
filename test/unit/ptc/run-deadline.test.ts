/**
 * The arithmetic of a run's deadline and its cap note (SPEC S9.7, `src/ptc/run-deadline.ts`);
 * the end-to-end behaviour is in `wall-clock-cap.test.ts`.
 */
import { describe, expect, it } from 'vitest'
import { checkTimeoutEnding } from '../../../src/ptc/check-endings.ts'
import { catastropheEnding, cpuEnding, deadlineEnding, deadlineEndingWithout, unansweredDeadlineEnding } from '../../../src/ptc/isolate/run-endings.ts'
import { runDeadlineMs, withCapNote } from '../../../src/ptc/run-deadline.ts'
import type { IsolateClock } from '../../../src/ptc/isolate/isolate-clock.ts'
import { OpenEntries } from '../../../src/ptc/isolate/open-entries.ts'
import { RunBudget } from '../../../src/ptc/isolate/run-budget.ts'
import { DEFAULT_RUN_LIMITS } from '../../../src/ptc/isolate/run-limits.ts'

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

describe('the catastrophe ending (S9.1)', () => {
  it('S9.1 says what typically causes it, growing values or an array operation no memoryMb allows, and that a worker restarted', () => {
    expect(catastropheEnding('Catastrophic out-of-memory error', 16, true).error!.message).toBe(
      "The isolate failed catastrophically (Catastrophic out-of-memory error), typically from exhausting its 16 MB memory limit (memoryMb) with values that kept growing, or from an array operation sized past V8's own limits, which no memoryMb allows; the isolate worker process was restarted and the next run uses a fresh worker. Process data in smaller pieces.",
    )
  })
})

describe('the wall-clock deadline ending, running code on a busy machine (S9.7)', () => {
  const spent = { checkMs: 0, toolWaitMs: 0, wallMs: 300, toolsRunning: [] }
  it('S9.7 code that had a core for most of its running time is told to look for an endless loop', () => {
    expect(deadlineEnding(300, { ...spent, runningMs: 290, cpuMs: 280 }).error!.message).toMatch(/most of it went to running the script's code .*\. Look for an endless loop or do less computation in the script\.$/)
  })
  it('S9.7 a run that waited for a fresh isolate most of its deadline hears so, not that a promise never settled', () => {
    const message = deadlineEnding(300, { ...spent, runningMs: 20, cpuMs: 20, toolWaitMs: 30, isolateWaitMs: 200 }).error!.message
    expect(message).toBe(
      'The script did not finish within the wall-clock limit of 300 ms (wallClockMs); most of it went to waiting for a fresh isolate before the script could start (type-checking and compiling 0 ms, running code 20 ms (CPU 20 ms), waiting on tool calls 30 ms, waiting on nothing 50 ms, waiting for a fresh isolate 200 ms). The isolates made ahead were taken by other scripts at once, or this run needed its own (a memoryMb other than the default); raise timeoutMs or run fewer scripts at once.',
    )
    expect(deadlineEnding(300, { ...spent, runningMs: 20, cpuMs: 20 }).error!.message).not.toMatch(/fresh isolate/)
  })
  it('S9.7 calls still running at the deadline are said to may have taken effect, whatever used most of the time', () => {
    const message = deadlineEnding(300, { ...spent, runningMs: 20, cpuMs: 20, toolWaitMs: 30, isolateWaitMs: 200, toolsRunning: ['write_file'] }).error!.message
    expect(message).toMatch(/most of it went to waiting for a fresh isolate .*run fewer scripts at once\. The call still running was stopped at the deadline and may or may not have taken effect: check before making it again\.$/)
    // Said once when the calls used most of it.
    const tools = deadlineEnding(300, { ...spent, runningMs: 20, cpuMs: 20, toolWaitMs: 250, toolsRunning: ['a', 'b'] }).error!.message
    expect(tools.match(/may or may not have taken effect/g)).toHaveLength(1)
  })
  it('S9.7 code that ran for most of the time is blamed, even when a call it left running was pending longer', () => {
    // A package trial: `tools.save(…); await tools.quick(); while (true) {}`, the save still running.
    const message = deadlineEnding(1_500, { checkMs: 0, runningMs: 1_456, cpuMs: 1_451, toolWaitMs: 1_458, wallMs: 1_500, toolsRunning: ['save'] }).error!.message
    expect(message).toMatch(/most of it went to running the script's code \(.*\)\. Look for an endless loop or do less computation in the script\. The call still running was stopped at the deadline and may or may not have taken effect/)
    // Below half the run's time, the largest use stands.
    expect(deadlineEnding(1_500, { checkMs: 0, runningMs: 700, cpuMs: 700, toolWaitMs: 1_458, wallMs: 1_500, toolsRunning: ['save'] }).error!.message).toMatch(/most of it went to waiting on tool calls/)
  })
  it('S9.7 code that had a core for less than half of it hears the machine was busy, with the CPU it got', () => {
    expect(deadlineEnding(300, { ...spent, runningMs: 290, cpuMs: 40 }).error!.message).toMatch(/most of it went to running the script's code .*\. Its code had a core for only 40 ms of that: the machine was busy \(other scripts at once\); raise timeoutMs or run fewer scripts at once\.$/)
  })
})

describe('OpenEntries: the wall time with an entry into the isolate open (S9.7)', () => {
  it('S9.7 counts from the first entry opened to the last one closed, then stops counting', () => {
    let now = 1_000
    const entries = new OpenEntries(() => now)
    expect([entries.count, entries.openMs]).toEqual([0, 0])
    entries.open()
    entries.open()
    now += 30
    expect(entries.close()).toBe(1)
    expect(entries.openMs).toBe(30)
    now += 10
    expect(entries.close()).toBe(0)
    now += 50 // nothing open: not counted
    expect(entries.openMs).toBe(40)
    expect(entries.close()).toBe(0) // more closes than opens change nothing
    entries.open()
    now += 5
    expect(entries.openMs).toBe(45) // counted while open, up to now
  })

  it("S9.7 a deadline's account counts an open entry's time as running code, where isolated-vm's clock missed it", async () => {
    const budget = new RunBudget({ cpuMs: () => 2, runningMs: () => 5 } as unknown as IsolateClock, { ...DEFAULT_RUN_LIMITS, wallClockMs: 60 }, performance.now(), 0)
    await new Promise((resolve) => setTimeout(resolve, 80)) // the run's time passes, in no entry of isolated-vm's count
    const [ending] = budget.deadlineVerdict({ busyMs: 0, running: [] }, 75)
    expect(ending.error!.message).toMatch(/most of it went to running the script's code \(type-checking and compiling 0 ms, running code 75 ms \(CPU 2 ms\)/)
    const [without] = budget.deadlineVerdict({ busyMs: 0, running: [] })
    expect(without.error!.message).toMatch(/most of it went to waiting on nothing/)
  })

  it("S9.7 a deadline's account names the time from the run's start to the budget's, made once it has its isolate, as waiting for a fresh isolate", () => {
    const budget = new RunBudget({ cpuMs: () => 0, runningMs: () => 0 } as unknown as IsolateClock, { ...DEFAULT_RUN_LIMITS, wallClockMs: 300 }, performance.now() - 250, 0)
    const [ending] = budget.deadlineVerdict({ busyMs: 0, running: [] })
    expect(ending.error!.message).toMatch(/most of it went to waiting for a fresh isolate before the script could start \(.*, waiting for a fresh isolate 2\d\d ms\)/)
  })
})
