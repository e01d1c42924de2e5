/**
 * The cross-session bound on `run_code` executions of one server: at most `maxConcurrent` scripts
 * run at once, the rest wait in FIFO order. The wait is bounded too, so a client cannot make the
 * server hold unbounded work (each waiting call keeps its code in memory):
 * - at most `maxQueued` calls wait across all sessions; one more is refused at once;
 * - one session may have at most `maxPerSession` calls running or waiting together; one more is
 *   refused at once, so a single session can neither fill the queue nor hold every slot while
 *   others wait behind it for long.
 * A refusal is a {@link RunRefused} whose message says why and to try again later. Built on `p-limit`.
 */
import pLimit from 'p-limit'
import { PtcError } from '../errors/ptc-error.ts'

/** Default number of `run_code` executions that may run at once across all sessions. */
export const DEFAULT_MAX_CONCURRENT_RUNS = 4
/** Default number of `run_code` calls that may wait for a slot, across all sessions. */
export const DEFAULT_MAX_QUEUED_RUNS = 64
/** Default number of `run_code` calls one session may have running or waiting at once. */
export const DEFAULT_MAX_RUNS_PER_SESSION = 4

/** The limits of a {@link RunLimiter}; each a positive whole number. */
export interface RunLimits {
  maxConcurrent?: number
  maxQueued?: number
  maxPerSession?: number
}

/** A call the limiter refused to queue (the queue or the session's share is full). */
export class RunRefused extends PtcError {
  constructor(message: string) {
    super('run-refused', message)
  }
}

/** A shared limiter; `run` queues when every slot is taken. */
export interface RunLimiter {
  /**
   * Run `task` when a slot is free; resolves or rejects as `task` does. `session` names the
   * caller for the per-session cap. When `signal` aborts while the task waits, the task is
   * dropped from the queue at once (it never runs) and the promise rejects with the reason.
   * @throws RunRefused (without running `task`) when the queue or the session's share is full.
   */
  run<T>(task: () => Promise<T>, session?: string, signal?: AbortSignal): Promise<T>
  /** Tasks running now. */
  readonly active: number
  /** Tasks waiting for a slot. */
  readonly pending: number
}

/**
 * Make a limiter. A number is `maxConcurrent` alone (the other limits keep their defaults).
 * @throws RangeError when a limit is not a positive whole number.
 */
export function createRunLimiter(limits: number | RunLimits = {}): RunLimiter {
  const { maxConcurrent = DEFAULT_MAX_CONCURRENT_RUNS, maxQueued = DEFAULT_MAX_QUEUED_RUNS, maxPerSession = DEFAULT_MAX_RUNS_PER_SESSION } =
    typeof limits === 'number' ? { maxConcurrent: limits } : limits
  for (const [label, value] of [['run limit', maxConcurrent], ['queue limit', maxQueued], ['per-session run limit', maxPerSession]] as const) {
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`The ${label} must be a positive whole number, got ${value}.`)
  }
  const limit = pLimit(maxConcurrent)
  const perSession = new Map<string, number>()
  // Calls cancelled while queued stay in p-limit's queue until their turn (then return at once);
  // they do not count as waiting.
  let abandonedQueued = 0
  const waiting = () => limit.pendingCount - abandonedQueued
  return {
    run: (task, session, signal) => {
      const mine = session === undefined ? 0 : (perSession.get(session) ?? 0)
      if (mine >= maxPerSession) {
        return Promise.reject(new RunRefused(`This session already has ${mine} run_code calls running or waiting (at most ${maxPerSession} per session); wait for one to finish, then try again.`))
      }
      if (limit.activeCount >= maxConcurrent && waiting() >= maxQueued) {
        return Promise.reject(new RunRefused(`The server has ${waiting()} run_code calls waiting for a slot (at most ${maxQueued}); try again later.`))
      }
      if (signal?.aborted) return Promise.reject(signal.reason)
      if (session !== undefined) perSession.set(session, mine + 1)
      let released = false
      const release = () => {
        if (released || session === undefined) return
        released = true
        const left = (perSession.get(session) ?? 1) - 1
        if (left > 0) perSession.set(session, left)
        else perSession.delete(session)
      }
      return new Promise((resolve, reject) => {
        let started = false
        let abandoned = false
        // A call cancelled while it waits leaves the queue at once: it no longer counts against
        // the session's share or the queue bound, and never takes a slot.
        const onAbort = () => {
          if (started) return
          abandoned = true
          abandonedQueued++
          release()
          reject(signal!.reason)
        }
        signal?.addEventListener('abort', onAbort, { once: true })
        void limit(async () => {
          if (abandoned) {
            abandonedQueued--
            return
          }
          started = true
          signal?.removeEventListener('abort', onAbort)
          try {
            resolve(await task())
          } catch (error) {
            reject(error)
          } finally {
            release()
          }
        })
      })
    },
    get active() {
      return limit.activeCount
    },
    get pending() {
      return waiting()
    },
  }
}
