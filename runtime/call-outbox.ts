/**
 * The script's tool calls on their way to the host, several in one crossing (issue 12). Each
 * crossing out of the isolate is a task isolated-vm hands to the host's thread; a burst of calls
 * (`Promise.all(items.map((x) => tools.read(x)))`) made them one task a call. The outbox keeps the
 * calls a synchronous stretch of the script makes and sends them together one microtask later, or
 * at once when {@link MAX_CALLS_A_CROSSING} are waiting, and before anything else the script sends
 * (a log line, its ending), so the host sees everything in the order the script did it.
 *
 * A call therefore starts when the script next yields (`await`, the end of a `.then` callback), not
 * in the middle of a synchronous stretch: a script that starts a call and then computes for a
 * while before awaiting it starts the call after the computation.
 *
 * Follows `intrinsics.ts`'s rules: the batch is a null-prototype array-like, filled by own index
 * (an index setter a script put on `Array.prototype` is never called), and `await` is the only
 * promise operation.
 */
import type { HostCall } from './bridge-types.ts'
import { ObjectCreate, ReflectApply } from './intrinsics.ts'

/** Calls sent in one crossing at most: 3 arguments each, well within a call's argument limit. */
export const MAX_CALLS_A_CROSSING = 128

/** The outbox of one isolate's calls; see the file comment. */
export interface CallOutbox {
  /**
   * Queues one call; it crosses with the others of this stretch. `alone`: no other call of the
   * script is waiting for its answer, so this one crosses at once when nothing is queued (a
   * sequential `await tools.x()` pays no wait and no extra microtask).
   */
  push(callId: number, toolName: string, argsJson: string, alone: boolean): void
  /** Sends the queued calls now (no-op when none are queued). Never throws. */
  flush(): void
}

/** A null-prototype array-like of `callId, toolName, argsJson` triples, for `Reflect.apply`. */
interface Batch {
  [index: number]: number | string
  length: number
}

/**
 * Creates the outbox. `refused(callId)` is called for each call of a crossing `hostCall` threw
 * for (the host has gone away), so the runtime rejects it.
 */
export function createCallOutbox(hostCall: HostCall, refused: (callId: number) => void): CallOutbox {
  let batch = emptyBatch()
  let flushQueued = false

  function flush(): void {
    const sending = batch
    if (sending.length === 0) return
    batch = emptyBatch()
    try {
      ReflectApply(hostCall, undefined, sending as unknown as unknown[])
    } catch {
      for (let index = 0; index < sending.length; index += 3) refused(sending[index] as number)
    }
  }

  async function flushSoon(): Promise<void> {
    await undefined
    flushQueued = false
    flush()
  }

  return {
    push(callId, toolName, argsJson, alone) {
      const at = batch.length
      if (alone && at === 0) {
        try {
          hostCall(callId, toolName, argsJson)
        } catch {
          refused(callId)
        }
        return
      }
      batch[at] = callId
      batch[at + 1] = toolName
      batch[at + 2] = argsJson
      batch.length = at + 3
      if (batch.length >= MAX_CALLS_A_CROSSING * 3) flush()
      else if (!flushQueued) {
        flushQueued = true
        void flushSoon()
      }
    },
    flush,
  }
}

function emptyBatch(): Batch {
  const batch = ObjectCreate(null) as Batch
  batch.length = 0
  return batch
}
