/**
 * The script's own outcome, from the runtime's `HostFinish` message (`runtime/bridge-types.ts`):
 * its return value, or the error it threw with the script's frames of its stack (issue 11).
 * Payloads come from inside the isolate and are checked, never trusted.
 */
import type { IsolateRunResult } from './isolate-contract.ts'
import { scriptFrames } from './script-frames.ts'

/** How the script itself ended: `ok` with its value (absent for `undefined`), or `error`. */
export type ScriptOutcome = Pick<IsolateRunResult, 'status' | 'value' | 'valueJson' | 'error'>

/**
 * The outcome a `HostFinish(kind, payload)` reports, or `undefined` for a malformed message.
 * A return value over `maxCrossingBytes` bytes of JSON becomes a RangeError (the runtime checked
 * a lower bound; this is the exact UTF-8 count). With `asJson` the value stays JSON text (`valueJson`).
 * @throws SyntaxError when a `value` or `error` payload is not JSON (the runtime always sends JSON).
 */
export function scriptOutcome(kind: unknown, payload: unknown, maxCrossingBytes: number, asJson = false): ScriptOutcome | undefined {
  if (typeof payload !== 'string') return undefined
  if (kind === 'undefined') return { status: 'ok' }
  if (kind === 'value') {
    const bytes = Buffer.byteLength(payload)
    if (bytes > maxCrossingBytes) {
      return { status: 'error', error: { name: 'RangeError', message: `the script's return value is too large: ${bytes} bytes of JSON, the limit is ${maxCrossingBytes} bytes (maxCrossingBytes). Return less, e.g. a summary or handles.` } }
    }
    if (asJson) return { status: 'ok', valueJson: payload }
    // JSON.parse on the host creates own properties only: a "__proto__" key stays plain data.
    return { status: 'ok', value: JSON.parse(payload) }
  }
  if (kind === 'error') {
    const parsed = JSON.parse(payload) as { name?: unknown; message?: unknown; stack?: unknown; toolName?: unknown }
    const frames = scriptFrames(parsed.stack)
    const error = {
      name: typeof parsed.name === 'string' ? parsed.name : 'Error',
      message: typeof parsed.message === 'string' ? parsed.message : 'the script failed',
      ...(typeof parsed.toolName === 'string' && { toolName: parsed.toolName }),
    }
    return { status: 'error', error: frames.length === 0 ? error : { ...error, frames } }
  }
  return undefined
}
