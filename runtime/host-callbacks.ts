/**
 * Which of the host's callbacks a step of the script uses (issue 12). The host installs two sets:
 * the ones isolated-vm runs on the host's next turn (`ignored`), for a step running on the
 * isolate's own thread, and the ones it runs at once on the calling thread (`sync`), for a step
 * the isolate worker runs synchronously on its main thread. A step on the worker's thread that
 * used the first set would wait a turn for each call to leave; one on the isolate's thread using
 * the second would hold that thread until the host's thread is free. Each entry says which kind
 * of step it is (`RuntimeControl.settle`), and every call, log line and ending of the step goes
 * through the matching set, so the host sees them in the order the script made them.
 */
import type { HostCall, HostFinish, HostLog } from './bridge-types.ts'
import { ReflectApply } from './intrinsics.ts'

/** One set of host callbacks. */
export interface HostCallbacks {
  call: HostCall
  log: HostLog
  finish: HostFinish
}

/** The callbacks the runtime holds: each forwards to the set of the step running now. */
export interface SteppedCallbacks extends HostCallbacks {
  /** The entry starting now runs on the calling thread (`true`) or the isolate's own (`false`). */
  stepRunsNow(now: boolean): void
}

/** Forwards to `later` unless a step said it runs now and `now` exists (an isolate without it is driven only asynchronously). */
export function createSteppedCallbacks(later: HostCallbacks, now: HostCallbacks | undefined): SteppedCallbacks {
  let current = later
  return {
    call: function (...calls) {
      ReflectApply(current.call, undefined, calls)
    },
    log: function (level, text) {
      current.log(level, text)
    },
    finish: function (kind, payload, pendingIds, handedIds) {
      current.finish(kind, payload, pendingIds, handedIds)
    },
    stepRunsNow(runsNow) {
      current = runsNow && now !== undefined ? now : later
    },
  }
}
