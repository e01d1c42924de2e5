/**
 * The ordering gate behind all scheduling (SPEC S7.1, S7.2), for batches from the agent loop and
 * for calls that arrive one by one from a `run_code` script alike. Admission is first-in,
 * first-out: parallel calls overlap each other in a `p-limit` rolling pool; an exclusive call
 * waits until everything admitted before it has finished, runs alone, and holds back everything
 * that arrives after it until it is done (an ordering barrier).
 */
import pLimit, { type LimitFunction } from 'p-limit'
import type { ToolExecutionMode } from '../tools/types.ts'

interface Waiting {
  mode: ToolExecutionMode['kind']
  start: () => void
}

export class ExecutionGate {
  private readonly limit: LimitFunction
  private readonly queue: Waiting[] = []
  private running = 0
  private exclusiveRunning = false

  /** @param concurrency width of the rolling pool for parallel calls (default 8). */
  constructor(concurrency = 8) {
    if (!(Number.isInteger(concurrency) && concurrency > 0)) throw new RangeError(`concurrency must be a positive integer, got ${concurrency}`)
    this.limit = pLimit(concurrency)
  }

  /** Calls admitted and not yet finished. */
  get active(): number {
    return this.running
  }

  /** Run `task` under the gate's rules for `mode`. Resolves or rejects as `task` does. */
  run<T>(mode: ToolExecutionMode, task: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const exclusive = mode.kind !== 'parallel'
      this.queue.push({
        mode: exclusive ? 'exclusive' : 'parallel',
        start: () => {
          this.running++
          if (exclusive) this.exclusiveRunning = true
          const work = exclusive ? Promise.resolve().then(task) : this.limit(task)
          work.then(resolve, reject).finally(() => {
            this.running--
            if (exclusive) this.exclusiveRunning = false
            this.pump()
          })
        },
      })
      this.pump()
    })
  }

  private pump(): void {
    while (this.queue.length > 0 && !this.exclusiveRunning) {
      const head = this.queue[0]!
      if (head.mode === 'exclusive' && this.running > 0) return
      this.queue.shift()
      head.start()
    }
  }
}
