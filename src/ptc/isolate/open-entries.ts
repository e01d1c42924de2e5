/**
 * One run's entries into its isolate that have not returned yet (SPEC S9.1, S9.7): while any is
 * open the run does not end (issue 11), and the wall time with any open counts as the script's
 * code running in a deadline's account. isolated-vm's own running time (`IsolateClock.runningMs`)
 * leaves out how long the system took to give an entry's thread a core, and to give this thread
 * the entry's end, which on a machine running many scripts at once was most of a run's time: a
 * deadline's message then blamed "a promise that never settles" (a package trial, 12 runs at once
 * on 2 cores). Only the entries the run waits for are counted (`enter`, a step on this thread), not
 * the settlements it sends without waiting.
 */
export class OpenEntries {
  readonly #now: () => number
  #count = 0
  #since = 0
  #closedMs = 0

  /** `now`: the clock, in ms (default `performance.now`; tests pass their own). */
  constructor(now: () => number = () => performance.now()) {
    this.#now = now
  }

  /** Entries open now. */
  get count(): number {
    return this.#count
  }

  /** Wall time in ms with at least one entry open, until now. */
  get openMs(): number {
    return this.#closedMs + (this.#count > 0 ? this.#now() - this.#since : 0)
  }

  /** An entry was made. */
  open(): void {
    if (this.#count++ === 0) this.#since = this.#now()
  }

  /** An entry returned (or failed); the entries still open. */
  close(): number {
    if (this.#count === 0) return 0
    if (--this.#count === 0) this.#closedMs += this.#now() - this.#since
    return this.#count
  }
}
