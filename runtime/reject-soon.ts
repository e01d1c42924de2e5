/**
 * Rejections that do not wait for isolated-vm's bookkeeping (issue 11). isolated-vm keeps a list
 * of the promises that rejected with no handler during one entry into the isolate, and scans the
 * whole list each time one of them gets a handler: a burst of n promises rejected first and
 * handled right after (`Promise.allSettled(items.map(() => Promise.reject(e)))`, or n refused
 * tool calls) costs it n²/2 comparisons (100,000 took about 75 s, 80 % of it in
 * `IsolateEnvironment::PromiseWasHandled`, measured with perf). Rejecting one microtask later
 * lets the handlers the script attaches synchronously come first: then nothing is listed and
 * nothing is scanned. A promise still unhandled by then is listed as before, so it is still
 * reported as an unhandled rejection.
 *
 * Follows `intrinsics.ts`'s rules (`await` is the only promise operation).
 */
import { CONFIGURABLE, defineData, OriginalPromise, ReflectApply, WRITABLE } from './intrinsics.ts'

/** Calls `reject(reason)` one microtask from now. */
export async function rejectSoon(reject: (reason: unknown) => void, reason: unknown): Promise<void> {
  await undefined
  reject(reason)
}

const nativeReject = OriginalPromise.reject

/**
 * Replaces the script's `Promise.reject` with one that rejects a microtask later (see the file
 * comment); called on anything but `Promise` itself (a subclass, `Promise.reject.call(C, x)`) it
 * is the built-in. The script may replace it again, like any built-in.
 */
export function installDeferredReject(): void {
  defineData(
    OriginalPromise,
    'reject',
    function reject(this: unknown, reason: unknown): Promise<unknown> {
      if (this !== OriginalPromise) return ReflectApply(nativeReject, this, [reason]) as Promise<unknown>
      return new OriginalPromise(function (_resolve, rejectNow) {
        void rejectSoon(rejectNow, reason)
      })
    },
    WRITABLE | CONFIGURABLE,
  )
}
