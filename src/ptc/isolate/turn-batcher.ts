/**
 * Per-turn batching, written once (issue 16): items pushed during one event-loop turn are
 * delivered together at the end of it (`setImmediate`), so a burst of parallel tool calls costs
 * one crossing (one IPC write, one entry into the isolate) instead of one per call. Used for the
 * isolate's settlements, the worker's calls to the host and the host's answers to the worker.
 */

/** Collects items and hands them to `deliver` once per event-loop turn, in push order. */
export class TurnBatcher<Item> {
  #items: Item[] = []
  #scheduled = false
  readonly #deliver: (items: Item[]) => void

  /** `deliver` gets a non-empty array it owns; it must not throw. */
  constructor(deliver: (items: Item[]) => void) {
    this.#deliver = deliver
  }

  /** Items waiting for the end of this turn. */
  get size(): number {
    return this.#items.length
  }

  /** Queues `item` for delivery at the end of this turn. */
  push(item: Item): void {
    this.#items.push(item)
    if (this.#scheduled) return
    this.#scheduled = true
    setImmediate(() => {
      this.#scheduled = false
      this.flush()
    })
  }

  /** Delivers what is queued now (nothing when empty): before a message that must come after them. */
  flush(): void {
    if (this.#items.length === 0) return
    const items = this.#items
    this.#items = []
    this.#deliver(items)
  }

  /** Drops what is queued (the run ended: nobody wants it any more). */
  clear(): void {
    this.#items = []
  }
}
