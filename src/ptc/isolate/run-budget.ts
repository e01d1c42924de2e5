/**
 * The time budgets of one isolate run (`RunLimits.wallClockMs`, `cpuTimeMs`; SPEC S9.7): what is
 * left of each, the timeout an entry into the isolate gets, and which limit a timed-out entry
 * hit. The isolate's own clocks are in {@link IsolateClock}.
 */
import type { HeldStepTimeout } from './isolate-contract.ts'
import { IsolateClock } from './isolate-clock.ts'
import { cpuEnding, cpuLimitName, cpuStepEnding, deadlineEnding, type RunEnding, WALL_CLOCK_LIMIT } from './run-endings.ts'
import type { RunLimits } from './run-limits.ts'

/** What a deadline's message says of the run's tool calls (`ToolCallQueue`'s counts). */
export interface ToolTime {
  /** Wall time in ms with at least one call running. */
  readonly busyMs: number
  /** The tool names of the calls running now. */
  readonly running: string[]
}

/** A limit's ending, and the limit's name (for the warnings of a script that ended before it). */
export type TimeoutVerdict = [ending: RunEnding, stoppedBy: string]

/**
 * One run's time budgets (SPEC S9.7): built when the run starts, read before each entry into the
 * isolate and when one times out. Durations in ms; never throws (a disposed isolate's clock reads 0).
 */
export class RunBudget {
  readonly clock: IsolateClock
  readonly #limits: RunLimits
  readonly #startedAt: number
  readonly #checkMs: number
  /** The wall time in ms from the run's start to this budget's, made once the run has its isolate. */
  readonly #isolateWaitMs: number

  /**
   * `startedAt`: `performance.now()` at the run's start, before it took its isolate (made once it
   * has one); `checkMs`: the deadline spent before the isolate (type-check, compile).
   */
  constructor(clock: IsolateClock, limits: RunLimits, startedAt: number, checkMs: number) {
    this.clock = clock
    this.#limits = limits
    this.#startedAt = startedAt
    this.#checkMs = checkMs
    this.#isolateWaitMs = performance.now() - startedAt
  }

  /** Wall-clock ms left (negative once past). */
  wallLeftMs(): number {
    return this.#limits.wallClockMs - (performance.now() - this.#startedAt)
  }

  /**
   * Timeout in ms for an entry on the isolate's own thread: the wall-clock budget left.
   * isolated-vm counts an entry's timeout in wall time, so the CPU budget is left to the run's
   * poller ({@link cpuOver}): on a loaded machine a long entry would otherwise end as a CPU
   * overrun it never made.
   */
  entryTimeoutMs(): number {
    return Math.max(1, Math.ceil(this.wallLeftMs()))
  }

  /**
   * Timeout in ms for a step on the calling thread (`IsolateRunRequest.stepHere`), during which
   * the poller cannot run: the smaller of the wall-clock and the CPU time left, in wall time.
   * `byCpu`: the CPU time left is the smaller (pass it to {@link timedOut}).
   */
  stepTimeout(): HeldStepTimeout {
    const wallLeftMs = this.wallLeftMs()
    const cpuLeftMs = this.#limits.cpuTimeMs - this.clock.cpuMs()
    return { timeoutMs: Math.max(1, Math.ceil(Math.min(wallLeftMs, cpuLeftMs))), byCpu: cpuLeftMs < wallLeftMs }
  }

  /** Whether the isolate has used more CPU time than `cpuTimeMs`. */
  cpuOver(): boolean {
    return this.clock.cpuMs() > this.#limits.cpuTimeMs
  }

  /** The CPU limit's ending. */
  cpuVerdict(): TimeoutVerdict {
    return [cpuEnding(this.#limits.cpuTimeMs), cpuLimitName(this.#limits.cpuTimeMs)]
  }

  /**
   * The wall clock's ending, with what the deadline was spent on; `entriesOpenMs`: wall time with
   * an entry into the isolate open (`OpenEntries`), its code running or waiting for a core.
   */
  deadlineVerdict(tools: ToolTime, entriesOpenMs = 0): TimeoutVerdict {
    const checkMs = this.#checkMs
    const cpuMs = this.clock.cpuMs()
    const ending = deadlineEnding(this.#limits.wallClockMs + Math.round(checkMs), {
      checkMs,
      // isolated-vm's running time leaves out the steps run on the calling thread (their CPU time
      // is in) and the system's delays in running an entry's thread and in hearing its end (the
      // time an entry was open is in).
      runningMs: Math.max(this.clock.runningMs(), cpuMs, entriesOpenMs),
      cpuMs,
      toolWaitMs: tools.busyMs,
      isolateWaitMs: this.#isolateWaitMs,
      wallMs: performance.now() - this.#startedAt,
      toolsRunning: tools.running,
    })
    return [ending, WALL_CLOCK_LIMIT]
  }

  /**
   * An entry timed out. It was the wall clock, unless the CPU time is used up (the poller may not
   * have run yet) or the entry was a step timed by the CPU time left (`byCpu`), which on a
   * loaded machine ends before the CPU time itself runs out: its message says so.
   */
  timedOut(byCpu: boolean, tools: ToolTime, entriesOpenMs = 0): TimeoutVerdict {
    if (this.cpuOver()) return this.cpuVerdict()
    if (!byCpu) return this.deadlineVerdict(tools, entriesOpenMs)
    return [cpuStepEnding(this.#limits.cpuTimeMs, this.clock.cpuMs()), cpuLimitName(this.#limits.cpuTimeMs)]
  }
}
