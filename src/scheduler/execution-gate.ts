/**
 * The ordering gate behind all scheduling (SPEC S7.1, S7.2), for batches from the agent loop and
 * for calls that arrive one by one from a `run_code` script alike. Admission is first-in,
 * first-out: parallel calls overlap each other in a rolling pool of `concurrency` slots; an
 * exclusive call waits until everything admitted before it has finished, runs alone, and holds
 * back everything that arrives after it until it is done (an ordering barrier).
 *
 * The pool is a counter rather than `p-limit`: every `run_code` tool call passes through here, and
 * p-limit's own queue and promise hops cost about as much again as this whole gate.
 */
import type { ToolExecutionMode } from '../tools/types.ts'

/**
 * Default width of the rolling pool (S7.2): parallel calls of one turn or one script that may
 * overlap. 16, so a script's `Promise.all` of ten or a dozen concurrency-safe calls (reads,
 * searches) overlaps entirely instead of taking two rounds (issue 12: ten 20 ms calls took 48 ms
 * at 8); exclusive calls are barriers whatever the width.
 */
export const DEFAULT_CONCURRENCY = 16

interface Waiting {
  exclusive: boolean
  start: () => void
}

export class ExecutionGate {
  private readonly concurrency: number
  /** FIFO of calls not yet started; `head` is the index of the first (compacted as it grows). */
  private queue: Waiting[] = []
  private head = 0
  private running = 0
  private exclusiveRunning = false

  /** @param concurrency width of the rolling pool for parallel calls (default {@link DEFAULT_CONCURRENCY}). */
  constructor(concurrency = DEFAULT_CONCURRENCY) {
    if (!(Number.isInteger(concurrency) && concurrency > 0)) throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`)
    this.concurrency = concurrency
  }

  /** Calls started and not yet finished. */
  get active(): number {
    return this.running
  }

  /**
   * Run `task` under the gate's rules for `mode`. Resolves or rejects as `task` does (a task that
   * throws synchronously rejects its own run only). The task always starts asynchronously.
   */
  run<T>(mode: ToolExecutionMode, task: () => Promise<T> | T): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const exclusive = mode.kind !== 'parallel'
      this.queue.push({
        exclusive,
        start: () => {
          this.running++
          if (exclusive) this.exclusiveRunning = true
          const done = (): void => {
            this.running--
            if (exclusive) this.exclusiveRunning = false
            this.pump()
          }
          Promise.resolve()
            .then(task)
            .then(
              (value) => {
                resolve(value)
                done()
              },
              (error: unknown) => {
                reject(error)
                done()
              },
            )
        },
      })
      this.pump()
    })
  }

  private pump(): void {
    while (this.head < this.queue.length && !this.exclusiveRunning) {
      const next = this.queue[this.head]!
      if (next.exclusive ? this.running > 0 : this.running >= this.concurrency) return
      this.queue[this.head++] = undefined as never
      if (this.head === this.queue.length) {
        this.queue = []
        this.head = 0
      } else if (this.head >= 1024 && this.head * 2 >= this.queue.length) {
        this.queue = this.queue.slice(this.head)
        this.head = 0
      }
      next.start()
    }
  }
}
