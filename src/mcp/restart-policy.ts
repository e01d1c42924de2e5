/**
 * When an imported MCP server that stopped (crashed, exited, dropped its connection, or failed to
 * start again) may be started again: on the next call, after a backoff that doubles with each
 * restart of the last minute, and at most a few times a minute (SPEC S1.4: a failure below the
 * tool level is a failed call with a clear message, never a hung run or a respawn loop).
 * A pure function of the restart history and the clock, so it is tested without processes.
 */

/** The numbers of the restart rule; see {@link DEFAULT_RESTART_POLICY}. */
export interface RestartPolicy {
  /** Restarts (successful or not) allowed within one {@link windowMs}. */
  maxRestarts: number
  /** The window the restarts are counted in, in ms (a minute). */
  windowMs: number
  /** Wait before the second restart of a window, counted from when the server stopped, in ms; doubles for each further one. The first restart waits for nothing. */
  backoffMs: number
  /** The longest backoff, in ms. */
  maxBackoffMs: number
}

/**
 * 5 restarts a minute; the first at once, then 1 s, 2 s, 4 s, 8 s after the server stopped. A
 * server that crashes on every call thus costs at most 15 s of waiting and 5 spawns a minute.
 * The README's import section states these numbers.
 */
export const DEFAULT_RESTART_POLICY: RestartPolicy = { maxRestarts: 5, windowMs: 60_000, backoffMs: 1_000, maxBackoffMs: 8_000 }

/** What to do about a stopped server: restart it after `waitMs`, or refuse until `retryAt`. */
export type RestartDecision =
  | { kind: 'restart'; waitMs: number }
  /** `retryAt` (epoch ms) is when the oldest restart of the window leaves it; `recent` is how many the window holds. */
  | { kind: 'refuse'; retryAt: number; recent: number }

/** Input of {@link decideRestart}; times are epoch ms. */
export interface RestartHistory {
  policy: RestartPolicy
  /** When each earlier restart was attempted, oldest first. */
  restarts: readonly number[]
  /** When the server was last seen stopping (or last failed to start). */
  stoppedAt: number
  now: number
}

/** Decide the next restart of a stopped server from its history. */
export function decideRestart({ policy, restarts, stoppedAt, now }: RestartHistory): RestartDecision {
  const recent = restarts.filter((at) => at > now - policy.windowMs)
  if (recent.length >= policy.maxRestarts) return { kind: 'refuse', retryAt: recent[recent.length - policy.maxRestarts]! + policy.windowMs, recent: recent.length }
  const backoff = recent.length === 0 ? 0 : Math.min(policy.backoffMs * 2 ** (recent.length - 1), policy.maxBackoffMs)
  return { kind: 'restart', waitMs: Math.max(0, stoppedAt + backoff - now) }
}

/** `retryAt` for a message: `20:31:05 UTC (in 42 s)`. */
export function describeRetry(retryAt: number, now: number): string {
  return `${new Date(retryAt).toISOString().slice(11, 19)} UTC (in ${Math.max(1, Math.ceil((retryAt - now) / 1000))} s)`
}
