/**
 * How long one run's isolate has run, by the isolate's own clocks (isolated-vm `cpuTime`,
 * `wallTime`): CPU it got, and wall time with its code running whether or not it had a core.
 * Counted from {@link IsolateClock.start}, so what a pooled isolate ran while it was prepared
 * is not the run's. Reads never throw: a disposed isolate reads as 0.
 */
import type ivm from 'isolated-vm'

export class IsolateClock {
  readonly #isolate: ivm.Isolate
  #cpuBaselineNs = 0n
  #wallBaselineNs = 0n

  constructor(isolate: ivm.Isolate) {
    this.#isolate = isolate
  }

  /** Starts counting now. */
  start(): void {
    this.#cpuBaselineNs = this.#isolate.cpuTime
    this.#wallBaselineNs = this.#isolate.wallTime
  }

  /** CPU time in ms the isolate used since `start`. */
  cpuMs(): number {
    try {
      return Number(this.#isolate.cpuTime - this.#cpuBaselineNs) / 1e6
    } catch {
      return 0
    }
  }

  /** Wall time in ms the isolate spent running (the script's code, and the runtime's) since `start`. */
  runningMs(): number {
    try {
      return Number(this.#isolate.wallTime - this.#wallBaselineNs) / 1e6
    } catch {
      return 0
    }
  }
}
