/**
 * A run's wall-clock deadline (SPEC S9.7): what the caller asked for (`RunOptions.timeoutMs`,
 * a model's `run_code` `timeoutMs`), else the host's default (`PtcConfig.limits.wallClockMs`,
 * 30,000 ms), and never more than the host's cap (`PtcConfig.maxWallClockMs`, 300,000 ms). When
 * the cap lowered what the caller asked for, a deadline's timeout message says so.
 */
import { DEFAULT_RUN_LIMITS } from './isolate/run-limits.ts'
import { DEFAULT_MAX_WALL_CLOCK_MS, type PtcConfig } from './ptc-config.ts'

/** The longest deadline in ms any run gets on a host with `config` (`maxWallClockMs`, else its default). */
export function maxWallClockMs(config: Pick<PtcConfig, 'maxWallClockMs'>): number {
  return config.maxWallClockMs ?? DEFAULT_MAX_WALL_CLOCK_MS
}

/** The deadline in ms of a run (or a `ptc check`) on a host with `config`, the caller asking for `timeoutMs`. */
export function runDeadlineMs(config: Pick<PtcConfig, 'limits' | 'maxWallClockMs'>, timeoutMs?: number): number {
  return Math.min(timeoutMs ?? config.limits?.wallClockMs ?? DEFAULT_RUN_LIMITS.wallClockMs, maxWallClockMs(config))
}

/**
 * `error` with a note that the caller's `timeoutMs` was capped to `deadlineMs`, when it was and
 * `error` is a deadline's ending: the run's wall clock (`(wallClockMs)` in its message) or the
 * check's (`(timeoutMs)`), as `isolate/run-endings.ts` and `check-endings.ts` word them; the CPU limit's ending is
 * another limit and is left as it is. Otherwise `error` itself.
 */
export function withCapNote<E extends { message: string }>(error: E, timeoutMs: number | undefined, deadlineMs: number): E {
  if (timeoutMs === undefined || timeoutMs <= deadlineMs || !/\((wallClockMs|timeoutMs)\)/.test(error.message)) return error
  return { ...error, message: `${error.message} (timeoutMs ${timeoutMs} was capped to ${deadlineMs} ms, the most this host allows: maxWallClockMs.)` }
}
