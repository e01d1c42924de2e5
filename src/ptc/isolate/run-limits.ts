/**
 * Resource limits of one `run_code` script run (SPEC S9.7: intermediate values have no byte cap
 * inside the run, but the run itself is bounded so a hostile or runaway script cannot take the
 * host down). Every field has a default; callers pass a `Partial<RunLimits>`.
 */

/** Limits of one isolate run. Units are in the names' docs: ms, MB, counts, bytes. */
export interface RunLimits {
  /**
   * Wall-clock budget in ms from the start of the run, enforced by a host timer that disposes the
   * isolate (isolated-vm's own timeout does not stop a script awaiting a never-settling promise or
   * slow tool calls). Expiry → status `timeout`. Default 30 000.
   */
  wallClockMs: number
  /**
   * CPU-time budget in ms of the isolate (`isolate.cpuTime`), enforced by a watchdog polling it
   * every 20 ms (not as the timeout of an entry into the isolate: isolated-vm counts those in
   * wall time, which load stretches). Expiry → status `timeout`. Default 10 000.
   */
  cpuTimeMs: number
  /**
   * Isolate heap limit in MB (isolated-vm `memoryLimit`, from 8 to {@link MAX_MEMORY_MB}).
   * Exceeded → status `memory`. Default 128.
   */
  memoryMb: number
  /**
   * Tool calls one run may make. Calls beyond it reject with a `ToolCallError` naming the limit
   * (the script may catch it); they never reach `dispatch`. Default 1 000.
   */
  maxToolCalls: number
  /**
   * Tool calls dispatched concurrently (handed to the host and not answered yet; the host's
   * rolling pool, `PtcConfig.concurrency`, decides how many of them run at once). Calls beyond it
   * are queued (FIFO), not failed; the queue is bounded by `maxToolCalls`. Whatever this limit, the
   * arguments of the calls in flight together stay within `maxCrossingBytes` (characters of their
   * JSON), except that one call may always go, so a script cannot move more than that into the host
   * ahead of its tools. Default 256: the calls of a `Promise.all` cross to a worker process in
   * batches, and fewer in flight leave the host waiting between batches (issue 12: 2,000 parallel
   * calls, 64 in flight 27.1-27.7 µs a call, 256 in flight 22.3-23.5).
   */
  maxCallsInFlight: number
  /**
   * Largest JSON string in bytes (UTF-8) that may cross the boundary in either direction: one
   * call's arguments, one tool result, the script's return value. Too-large arguments or results
   * become a `ToolCallError`; a too-large return value makes the run's status `error`.
   * Default 8 MiB.
   */
  maxCrossingBytes: number
  /**
   * Budget of captured console output in bytes (each entry also costs 32 bytes). Past it, one
   * `[logs truncated …]` warning is added and later lines are dropped. Default 1 MiB.
   */
  maxLogBytes: number
}

/** Defaults of {@link RunLimits}. */
export const DEFAULT_RUN_LIMITS: Readonly<RunLimits> = Object.freeze({
  wallClockMs: 30_000,
  cpuTimeMs: 10_000,
  memoryMb: 128,
  maxToolCalls: 1_000,
  maxCallsInFlight: 256,
  maxCrossingBytes: 8 * 1024 * 1024,
  maxLogBytes: 1024 * 1024,
})

/** The smallest value each limit takes (`resolveRunLimits` and `createHost` refuse less). */
export const RUN_LIMIT_MINIMUMS: Readonly<RunLimits> = Object.freeze({
  wallClockMs: 1,
  cpuTimeMs: 1,
  memoryMb: 8,
  maxToolCalls: 0,
  maxCallsInFlight: 1,
  maxCrossingBytes: 2,
  maxLogBytes: 0,
})

/**
 * The largest `memoryMb`, 1 TiB: isolated-vm's limit wraps around past 2^44 MB (a `memoryLimit`
 * of 2^53 - 1 gave a 23 MB heap, measured 2026-12-04), so a larger value would silently be a
 * tiny one.
 */
export const MAX_MEMORY_MB = 1_048_576

/**
 * Merges `overrides` over {@link DEFAULT_RUN_LIMITS}. `undefined` fields keep the default.
 * @throws RangeError when a field is not a finite number, is below its minimum, or (`memoryMb`)
 *   is above {@link MAX_MEMORY_MB} (a caller bug, not something a script can cause).
 */
export function resolveRunLimits(overrides: Partial<RunLimits> = {}): RunLimits {
  const limits = { ...DEFAULT_RUN_LIMITS }
  for (const key of Object.keys(DEFAULT_RUN_LIMITS) as (keyof RunLimits)[]) {
    const value = overrides[key]
    if (value === undefined) continue
    if (typeof value !== 'number' || !Number.isFinite(value) || value < RUN_LIMIT_MINIMUMS[key]) {
      throw new RangeError(`RunLimits.${key} must be a finite number >= ${RUN_LIMIT_MINIMUMS[key]}, got ${String(value)}`)
    }
    if (key === 'memoryMb' && value > MAX_MEMORY_MB) throw new RangeError(`RunLimits.memoryMb must be at most ${MAX_MEMORY_MB} (1 TiB), got ${String(value)}`)
    limits[key] = Math.floor(value)
  }
  return limits
}
