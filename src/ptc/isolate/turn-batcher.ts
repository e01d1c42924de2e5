/**
 * Per-turn batching, written once (issue 16): items pushed during one event-loop turn are
 * delivered together at the end of it (`setImmediate`), so a burst of parallel tool calls costs
 * one crossing (one IPC write, one entry into the isolate) instead of one per call, up to
 * {@link MAX_BATCH_ITEMS} at a time. Used for the
 * isolate's settlements, the worker's calls to the host and the host's answers to the worker.
 */

/**
 * Items delivered together at most (issue 12): a burst's first part reaches the other side while
 * the rest is still being produced, so both sides work at once. Without it a burst of 2,000
 * calls from code was answered as one entry into the isolate, which then resolved them all while
 * the host waited (`Promise.all` of 2,000 calls inline, interleaved rounds: 13.6 -> 10.7 us a call).
 */
export const MAX_BATCH_ITEMS = 128

/** Collects items and hands them to `deliver` once per event-loop turn, in push order. */
export class TurnBatcher<Item> {
  /** Made with the first item, at its size (a sequential call's one item grows no array, issue 12). */
  #items: Item[] | undefined
  #scheduled = false
  #soonQueued = false
  readonly #deliver: (items: Item[]) => void
  readonly #maxItems: number
  readonly #flushSoon = (): void => {
    this.#soonQueued = false
    this.flush()
  }

  /**
   * `deliver` gets a non-empty array it owns; it must not throw. A batch that reaches `maxItems`
   * is delivered at once instead of at the end of the turn (default {@link MAX_BATCH_ITEMS}).
   */
  constructor(deliver: (items: Item[]) => void, maxItems = MAX_BATCH_ITEMS) {
    this.#deliver = deliver
    this.#maxItems = maxItems
  }

  /**
   * Queues `item` for delivery at the end of this turn. With `soon`, the batch goes one microtask
   * from now instead, with what else is queued by then: for an item nothing else is expected to
   * join (the answer to the only call outstanding), or items that already come as a batch (a
   * crossing's calls, an IPC message's answers, whose handling queues them at the same microtask
   * depth). The rest of the turn costs a sequential call from code 3-10 us in the isolate worker
   * (issue 12: host-side timeline of `push` to `flush`, 4.6 us each way).
   */
  push(item: Item, soon = false): void {
    if (this.#items === undefined) this.#items = [item]
    else this.#items.push(item)
    if (this.#items.length >= this.#maxItems) return this.flush()
    if (soon) {
      if (this.#soonQueued) return
      this.#soonQueued = true
      queueMicrotask(this.#flushSoon)
      return
    }
    if (this.#scheduled) return
    this.#scheduled = true
    setImmediate(() => {
      this.#scheduled = false
      this.flush()
    })
  }

  /**
   * The answer to the only call outstanding: delivered at once when nothing is queued (no wait, no
   * microtask: issue 12), else queued behind what is, to go one microtask from now (`push(item, true)`).
   */
  pushAlone(item: Item): void {
    if (this.#items === undefined) return this.#deliver([item])
    this.push(item, true)
  }

  /** Delivers what is queued now (nothing when empty): before a message that must come after them. */
  flush(): void {
    const items = this.#items
    if (items === undefined) return
    this.#items = undefined
    this.#deliver(items)
  }

  /** Drops what is queued (the run ended: nobody wants it any more). */
  clear(): void {
    this.#items = undefined
  }
}
