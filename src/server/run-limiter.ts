/**
 * The cross-session bound on `run_code` executions of one server (SPEC S9.4), fair across
 * sessions: at most `maxConcurrent` scripts run at once, and no session may hold more than its
 * running share (`maxRunningPerSession`, by default half the slots), so one session can never hold
 * every slot while another waits. Waiting calls are admitted round-robin across sessions: when a
 * slot frees, the next session in turn that is below its share starts its oldest waiting call.
 *
 * The wait is bounded too, so a client cannot make the server hold unbounded work (each waiting
 * call keeps its code in memory):
 * - at most `maxQueued` calls wait across all sessions; one more is refused at once;
 * - one session may have at most `maxPerSession` calls running or waiting together; one more is
 *   refused at once.
 * A refusal is a {@link RunRefused} whose message says why and to try again later.
 */
import { PtcError } from '../errors/ptc-error.ts'
import { DEFAULT_MAX_CONCURRENT_RUNS, DEFAULT_MAX_QUEUED_RUNS, DEFAULT_MAX_RUNS_PER_SESSION } from './serve-defaults.ts'

export { DEFAULT_MAX_CONCURRENT_RUNS, DEFAULT_MAX_QUEUED_RUNS, DEFAULT_MAX_RUNS_PER_SESSION }

/** The limits of a {@link RunLimiter}; each a positive whole number. */
export interface RunLimiterLimits {
  /** Runs at once across sessions (default 4). */
  maxConcurrent?: number
  /**
   * Runs one session may have running at once (default: half of `maxConcurrent`, at least 1).
   * At most `maxConcurrent`; equal to it only where one session is all there is (stdio).
   */
  maxRunningPerSession?: number
  /** Calls waiting for a slot across sessions (default 64). */
  maxQueued?: number
  /** Calls one session may have running or waiting together (default: `maxConcurrent`, at least 4). */
  maxPerSession?: number
}

/**
 * Every limit with the defaults derived from `maxConcurrent` filled in (see {@link RunLimiterLimits}).
 * A number is `maxConcurrent` alone.
 * @throws RangeError when a limit is not a positive whole number, or the running share exceeds
 *   `maxConcurrent`.
 */
export function resolveRunLimiterLimits(limits: number | RunLimiterLimits = {}): Required<RunLimiterLimits> {
  const given = typeof limits === 'number' ? { maxConcurrent: limits } : limits
  const maxConcurrent = given.maxConcurrent ?? DEFAULT_MAX_CONCURRENT_RUNS
  checkWhole('run limit', maxConcurrent)
  const resolved = {
    maxConcurrent,
    maxRunningPerSession: given.maxRunningPerSession ?? Math.max(1, Math.floor(maxConcurrent / 2)),
    maxQueued: given.maxQueued ?? DEFAULT_MAX_QUEUED_RUNS,
    maxPerSession: given.maxPerSession ?? Math.max(DEFAULT_MAX_RUNS_PER_SESSION, maxConcurrent),
  }
  checkWhole('per-session running limit', resolved.maxRunningPerSession)
  checkWhole('queue limit', resolved.maxQueued)
  checkWhole('per-session run limit', resolved.maxPerSession)
  if (resolved.maxRunningPerSession > maxConcurrent) {
    throw new RangeError(`The per-session running limit (${resolved.maxRunningPerSession}) cannot exceed the run limit (${maxConcurrent}).`)
  }
  return resolved
}

function checkWhole(label: string, value: number): void {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`The ${label} must be a positive whole number, got ${value}.`)
}

/** A call the limiter refused to queue (the queue or the session's share is full). */
export class RunRefused extends PtcError {
  constructor(message: string) {
    super('run-refused', message)
  }
}

/** A shared limiter; `run` queues when no slot is free for the caller's session. */
export interface RunLimiter {
  /**
   * Run `task` when a slot is free and `session` is below its running share; resolves or rejects
   * as `task` does. `session` names the caller; calls without one are not bound by the
   * per-session limits and wait in one FIFO lane of the round-robin.
   * When `signal` aborts while the task waits, the task is dropped from the queue at once (it
   * never runs) and the promise rejects with the reason.
   * @throws RunRefused (without running `task`) when the queue or the session's share is full.
   */
  run<T>(task: () => Promise<T>, session?: string, signal?: AbortSignal): Promise<T>
  /** The limits in force, derived defaults included. */
  readonly limits: Readonly<Required<RunLimiterLimits>>
  /** Tasks running now. */
  readonly active: number
  /** Tasks waiting for a slot. */
  readonly pending: number
}

const ANONYMOUS = Symbol('anonymous session')
type SessionKey = string | typeof ANONYMOUS

/**
 * Make a limiter. A number is `maxConcurrent` alone (the other limits derive from it).
 * @throws RangeError as {@link resolveRunLimiterLimits}.
 */
export function createRunLimiter(limits: number | RunLimiterLimits = {}): RunLimiter {
  const resolved = Object.freeze(resolveRunLimiterLimits(limits))
  const { maxConcurrent, maxRunningPerSession, maxQueued, maxPerSession } = resolved
  /** Calls running or waiting, per session. */
  const held = new Map<SessionKey, number>()
  /** Calls running, per session. */
  const running = new Map<SessionKey, number>()
  /** Waiting calls per session, oldest first; map order is the round-robin turn order. */
  const lanes = new Map<SessionKey, (() => void)[]>()
  let active = 0
  let waiting = 0

  const belowShare = (key: SessionKey) => key === ANONYMOUS || (running.get(key) ?? 0) < maxRunningPerSession
  const bump = (map: Map<SessionKey, number>, key: SessionKey, by: number) => {
    const next = (map.get(key) ?? 0) + by
    if (next > 0) map.set(key, next)
    else map.delete(key)
  }

  /** Start waiting calls while slots are free: the first session in turn below its share goes, then moves to the back. */
  const admit = () => {
    while (active < maxConcurrent) {
      let next: SessionKey | undefined
      for (const key of lanes.keys()) {
        if (belowShare(key)) {
          next = key
          break
        }
      }
      if (next === undefined) return
      const lane = lanes.get(next)!
      const start = lane.shift()!
      lanes.delete(next)
      if (lane.length > 0) lanes.set(next, lane)
      waiting--
      start()
    }
  }

  return {
    run: (task, session, signal) => {
      const key: SessionKey = session ?? ANONYMOUS
      const mine = held.get(key) ?? 0
      if (key !== ANONYMOUS && mine >= maxPerSession) {
        return Promise.reject(
          new RunRefused(`This session already has ${mine} run_code calls running or waiting (at most ${maxPerSession} per session, ${maxRunningPerSession} of them running); wait for one to finish, then try again.`),
        )
      }
      const startsNow = active < maxConcurrent && belowShare(key)
      if (!startsNow && waiting >= maxQueued) {
        return Promise.reject(new RunRefused(`The server has ${waiting} run_code calls waiting for a slot (at most ${maxQueued}); try again later.`))
      }
      if (signal?.aborted) return Promise.reject(signal.reason)
      bump(held, key, 1)
      return new Promise((resolve, reject) => {
        const start = () => {
          signal?.removeEventListener('abort', onAbort)
          active++
          bump(running, key, 1)
          // The slot is free again before the caller hears the outcome.
          const finish = () => {
            active--
            bump(running, key, -1)
            bump(held, key, -1)
            admit()
          }
          Promise.resolve()
            .then(task)
            .then(
              (value) => {
                finish()
                resolve(value)
              },
              (error: unknown) => {
                finish()
                reject(error)
              },
            )
        }
        // A call cancelled while it waits leaves the queue at once: it no longer counts against
        // the session's share or the queue bound, and never takes a slot.
        const onAbort = () => {
          const lane = lanes.get(key)
          const index = lane?.indexOf(start) ?? -1
          if (index < 0) return
          lane!.splice(index, 1)
          if (lane!.length === 0) lanes.delete(key)
          waiting--
          bump(held, key, -1)
          reject(signal!.reason)
        }
        signal?.addEventListener('abort', onAbort, { once: true })
        const lane = lanes.get(key)
        if (lane) lane.push(start)
        else lanes.set(key, [start])
        waiting++
        admit()
      })
    },
    limits: resolved,
    get active() {
      return active
    },
    get pending() {
      return waiting
    },
  }
}
