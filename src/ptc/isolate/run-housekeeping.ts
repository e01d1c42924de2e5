/**
 * When the isolate worker process cleans up after a run (issue 12): disposing the run's isolate
 * and preparing its replacement, about 3 ms of the worker's main thread, which makes the context
 * and runtime too (`IsolatePoolOptions.prepareOffThread`). Right after the answer, that work competes with the
 * host the answer just woke, which the kernel often queues on the same core (`perf sched
 * timehist`: the host waited 0.9-2.4 ms for it while the other core was idle), so a run that
 * comes after a pause, as a model's runs do, is answered in twice the time.
 * Runs that come back to back (several sessions, a benchmark's loop) are better served by the
 * clean-up at once: it then overlaps the host's turn instead of the next run. So the clean-up
 * waits {@link HOUSEKEEPING_DELAY_MS}, until a run arrives within {@link BACK_TO_BACK_MS} of the
 * answer before it (sooner than a delayed clean-up would have finished); from then on runs are
 * taken to come back to back, and cleaned up at once, until one comes more than
 * {@link STREAM_END_MS} after the answer before it. (A clean-up at once can itself delay the
 * host's next run by a few ms, so the way back needs a longer gap than the way in.)
 *
 * Every {@link FULL_GC_EVERY_RUNS}th clean-up also ends with a full garbage collection of the
 * worker's own heap (issue 12: memory flat). Each run leaves isolated-vm's handles to its isolate,
 * context and references behind, and the native memory behind them goes only when V8 collects
 * those handles, which a worker answering runs back to back put off for thousands of runs: the
 * two workers grew 165 -> 209 MB over 10,000 runs with no replacement, 156 -> 163 with this
 * collection (bench/memory.bench.ts; experiments with the worker's V8 flags instead, a larger or
 * fixed young generation, `--heap-growing-percent=10`, `--optimize-for-size`, grew 12-18 %).
 */

/**
 * How long after an answer the worker's clean-up waits when runs come after pauses (ms).
 * Alternating A/B in fresh processes (2026-12-03 13:48-13:50, load 0.8-1.2), a trivial run after
 * a 50 ms pause, medians of 40, four rounds: clean-up on the next turn 5.59 / 4.91 / 3.50 / 4.41
 * ms, after 2 ms 3.02 / 2.14 / 1.90 / 1.89 ms; the same delay for runs back to back made them 10-20 %
 * slower, hence {@link RunHousekeeping}'s choice.
 */
export const HOUSEKEEPING_DELAY_MS = 2

/**
 * Clean-ups between two full garbage collections of the worker (see the file comment). One takes
 * 7-11 ms of the worker's main thread (load 2), about 16 µs a run at this spacing; collecting
 * every 100, 250 or 500 runs left the same growth over 10,000 runs (+4.0..+6.7 %), which is
 * isolated-vm's own residue (`bench/memory.bench.ts`).
 */
export const FULL_GC_EVERY_RUNS = 500

/**
 * A run this soon after the answer before it (ms) starts back-to-back runs: a delayed clean-up
 * (2 ms, then about 3 ms of work) would not have finished, so it would fall inside this run. A
 * tight loop of runs measured gaps of 1.96-2.34 ms, right at the delay, on a loaded 2-core machine.
 */
export const BACK_TO_BACK_MS = 5

/** A gap after an answer longer than this (ms) ends back-to-back runs (see the file comment). */
export const STREAM_END_MS = 20

/** The clock and timers a {@link RunHousekeeping} uses (tests pass their own). */
export interface HousekeepingTimers {
  now(): number
  /** Runs `work` on the next turn. */
  soon(work: () => void): void
  /** Runs `work` after `ms`, without keeping the process alive. */
  later(work: () => void, ms: number): void
}

const NODE_TIMERS: HousekeepingTimers = {
  now: () => performance.now(),
  soon: (work) => void setImmediate(work),
  later: (work, ms) => void setTimeout(work, ms).unref(),
}

/**
 * A full garbage collection of the worker's heap (`takeWorkerGc`, worker-gc.ts) and the
 * clean-ups between two; see {@link FULL_GC_EVERY_RUNS}.
 */
export interface FullGc {
  collect: () => void
  everyRuns: number
}

/** Schedules each run's clean-up in the isolate worker (see the file comment). */
export class RunHousekeeping {
  readonly #timers: HousekeepingTimers
  readonly #delayMs: number
  readonly #fullGc: FullGc | undefined
  /** Clean-ups since the last full garbage collection. */
  #cleanUps = 0
  #answeredAt = Number.NEGATIVE_INFINITY
  /**
   * When the clean-up run at once after the last answer ended: a run message that came during it
   * could only be received then.
   */
  #cleanedAt = Number.NEGATIVE_INFINITY
  /** Whether runs come back to back (see the file comment). */
  #backToBack = false

  /** `fullGc`: collect the worker's heap after every `everyRuns`th clean-up (none without). */
  constructor(delayMs = HOUSEKEEPING_DELAY_MS, timers: HousekeepingTimers = NODE_TIMERS, fullGc?: FullGc) {
    this.#delayMs = delayMs
    this.#timers = timers
    this.#fullGc = fullGc
  }

  /**
   * A run has arrived (call as its message is received). Its gap counts from the answer before
   * it, or from the end of the clean-up run at once after that answer: a message that came during
   * that clean-up is only received once it is done.
   */
  runArrived(): void {
    const gapMs = this.#timers.now() - Math.max(this.#answeredAt, this.#cleanedAt)
    this.#backToBack = this.#backToBack ? gapMs <= STREAM_END_MS : gapMs < BACK_TO_BACK_MS
  }

  /**
   * `IsolatePoolOptions.afterRun`: a run has answered; `cleanUp` runs on the next turn when runs
   * come back to back, else after {@link HOUSEKEEPING_DELAY_MS}. Bound, so it can be passed as is.
   */
  readonly afterRun = (cleanUp: () => void): void => {
    this.#answeredAt = this.#timers.now()
    this.#cleanedAt = Number.NEGATIVE_INFINITY
    const work = (): void => {
      try {
        cleanUp()
      } finally {
        this.#collectWhenDue()
      }
    }
    if (!this.#backToBack) return this.#timers.later(work, this.#delayMs)
    this.#timers.soon(() => {
      try {
        work()
      } finally {
        this.#cleanedAt = this.#timers.now()
      }
    })
  }

  #collectWhenDue(): void {
    if (this.#fullGc === undefined || ++this.#cleanUps < this.#fullGc.everyRuns) return
    this.#cleanUps = 0
    this.#fullGc.collect()
  }
}
