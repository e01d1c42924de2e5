/**
 * One run's entries into its isolate that have not returned yet (SPEC S9.1, S9.7): while any is
 * open the run does not end (issue 11), and the wall time with any open is time the script's code
 * ran or was queued to run. isolated-vm's own running time (`IsolateClock.runningMs`) leaves out
 * an entry's wait for a thread of its pool, which on a machine running many scripts at once was
 * most of a run's time: a deadline's message then blamed "a promise that never settles" (a
 * package trial, 12 runs at once on 2 cores).
 */
export class OpenEntries {
  #count = 0
  #since = 0
  #closedMs = 0

  /** Entries open now. */
  get count(): number {
    return this.#count
  }

  /** Wall time in ms with at least one entry open, until now. */
  get openMs(): number {
    return this.#closedMs + (this.#count > 0 ? performance.now() - this.#since : 0)
  }

  /** An entry was made. */
  open(): void {
    if (this.#count++ === 0) this.#since = performance.now()
  }

  /** An entry returned (or failed); the entries still open. */
  close(): number {
    if (this.#count === 0) return 0
    if (--this.#count === 0) this.#closedMs += performance.now() - this.#since
    return this.#count
  }
}
