/**
 * The script's tool calls on their way to the host, several in one crossing (issue 12). Each
 * crossing out of the isolate is a task isolated-vm hands to the host's thread; a burst of calls
 * (`Promise.all(items.map((x) => tools.read(x)))`) made them one task a call. A call made while
 * no other call of the script waits for its answer crosses at once, as before. A call made while
 * others wait is kept with the rest of its synchronous stretch and sent with them one microtask
 * later, or at once when {@link MAX_CALLS_A_CROSSING} are waiting, and before anything else the
 * script sends (a log line, its ending), so the host sees everything in the order the script did
 * it. So with other calls waiting, a call starts when the script next yields, not in the middle of
 * a synchronous stretch (README, Limits and guarantees).
 *
 * A call made with the stack nearly full must leave no trace when it throws: `push` changes
 * nothing before the last step that can throw, and a crossing that runs out of stack keeps its
 * calls for the next flush, which runs on a fresh stack.
 *
 * Follows `intrinsics.ts`'s rules: the batch is a null-prototype array-like, filled by own index
 * (an index setter a script put on `Array.prototype` is never called), and `await` is the only
 * promise operation.
 */
import type { HostCall } from './bridge-types.ts'
import { ObjectCreate, OriginalRangeError, ReflectApply } from './intrinsics.ts'

/** Calls sent in one crossing at most: 3 arguments each, well within a call's argument limit. */
export const MAX_CALLS_A_CROSSING = 128

/** Failed crossings in a row tried again before their calls are refused (a fresh stack never fails). */
const MAX_RETRIES = 3

/** The outbox of one isolate's calls; see the file comment. */
export interface CallOutbox {
  /**
   * Queues one call; it crosses with the others of this stretch. `alone`: no other call of the
   * script is waiting for its answer, so this one crosses at once when nothing is queued (a
   * sequential `await tools.x()` pays no wait and no extra microtask). When it throws (the stack
   * ran out), the call was neither sent nor queued.
   */
  push(callId: number, toolName: string, argsJson: string, alone: boolean): void
  /** Sends the queued calls now (no-op when none are queued). Throws only when the stack is already exhausted on entry. */
  flush(): void
}

/** A null-prototype array-like of `callId, toolName, argsJson` triples, for `Reflect.apply`. */
interface Batch {
  [index: number]: number | string
  length: number
}

/**
 * Creates the outbox. `refused(callId)` is called for each call of a crossing `hostCall` still
 * threw for after {@link MAX_RETRIES} tries (the host has gone away), so the runtime rejects it.
 */
export function createCallOutbox(hostCall: HostCall, refused: (callId: number) => void): CallOutbox {
  let batch = emptyBatch()
  let flushQueued = false
  let retries = 0

  /**
   * Sends the queued calls. `fresh`: on a fresh stack (the queued microtask), where only a host
   * that has gone away makes the crossing fail; a failure anywhere else (the stack ran out deep in
   * a recursion) is not counted and leaves the calls queued for that microtask.
   */
  function flush(fresh: boolean): void {
    const sending = batch
    if (sending.length === 0) return
    let next: Batch
    const count = sending.length
    // isolated-vm 7.0.1 drops a callback call with 255, 383, 511… arguments (a count ≡ 127 mod
    // 128: "Unable to deserialize cloned data", silently for an ignored callback), so 85 calls in
    // one crossing never arrived and the script waited for them to its deadline. One more
    // argument, which the host ignores (it reads whole triples), avoids those counts.
    if (count % 128 === 127) {
      sending[count] = 0
      sending.length = count + 1
    }
    try {
      // Made before the crossing: nothing after a successful send may throw (it would be sent twice).
      next = emptyBatch()
      ReflectApply(hostCall, undefined, sending as unknown as unknown[])
    } catch {
      if (sending.length !== count) {
        delete sending[count]
        sending.length = count
      }
      // Most likely the stack ran out (a call made deep in a recursion): tried again on a fresh
      // one. A crossing that keeps failing there (the host has gone away) refuses its calls.
      if (!fresh || retries < MAX_RETRIES) {
        if (fresh) retries++
        queueFlush() // On a fresh stack, one microtask from now.
        return
      }
      batch = emptyBatch()
      for (let index = 0; index < sending.length; index += 3) refused(sending[index] as number)
      return
    }
    batch = next
    retries = 0
  }

  async function flushSoon(): Promise<void> {
    await undefined
    flushQueued = false
    flush(true)
  }

  /** Schedules a flush one microtask from now unless one is; throws only when the stack is exhausted. */
  function queueFlush(): void {
    if (flushQueued) return
    void flushSoon()
    flushQueued = true
  }

  return {
    push(callId, toolName, argsJson, alone) {
      if (alone && batch.length === 0) {
        hostCall(callId, toolName, argsJson)
        return
      }
      queueFlush()
      if (batch.length >= MAX_CALLS_A_CROSSING * 3) {
        flush(false)
        // The crossing failed here (the stack ran out): this call is neither sent nor queued.
        if (batch.length >= MAX_CALLS_A_CROSSING * 3) throw new OriginalRangeError('the tool call could not be sent (the stack is nearly exhausted, or the host has gone away); it was not made')
      }
      const at = batch.length
      batch[at] = callId
      batch[at + 1] = toolName
      batch[at + 2] = argsJson
      batch.length = at + 3
    },
    flush: () => flush(false),
  }
}

function emptyBatch(): Batch {
  const batch = ObjectCreate(null) as Batch
  batch.length = 0
  return batch
}
