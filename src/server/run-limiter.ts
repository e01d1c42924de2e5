/**
 * The cross-session bound on `run_code` executions of one server: at most `max` scripts run at
 * once, the rest wait in FIFO order (queueing, never failure). Built on `p-limit`.
 */
import pLimit from 'p-limit'

/** Default number of `run_code` executions that may run at once across all sessions. */
export const DEFAULT_MAX_CONCURRENT_RUNS = 4

/** A shared limiter; `run` queues when `max` tasks are active. */
export interface RunLimiter {
  /** Run `task` when a slot is free; resolves or rejects as `task` does. */
  run<T>(task: () => Promise<T>): Promise<T>
  /** Tasks running now. */
  readonly active: number
  /** Tasks waiting for a slot. */
  readonly pending: number
}

/**
 * Make a limiter for `max` concurrent tasks (a positive integer).
 * @throws RangeError when `max` is not a positive integer.
 */
export function createRunLimiter(max: number = DEFAULT_MAX_CONCURRENT_RUNS): RunLimiter {
  if (!Number.isInteger(max) || max < 1) throw new RangeError(`The run limit must be a positive whole number, got ${max}.`)
  const limit = pLimit(max)
  return {
    run: (task) => limit(task),
    get active() {
      return limit.activeCount
    },
    get pending() {
      return limit.pendingCount
    },
  }
}
