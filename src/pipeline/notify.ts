/**
 * An observer notifier whose listener failures are isolated (SPEC S3 `tools/result`, STYLE:
 * composition). cordis' own `emit` stops at the first throwing listener; observers must not be
 * able to disturb each other or the pipeline, so each runs in its own try, and a rejected promise
 * from an async listener is caught too.
 */
import type { Context, Events } from 'cordis'
import { type EventHooks, eventHooks, isEventHooks, listenersOf } from './cordis-adapter.ts'
import { isThenable } from './thenable.ts'

/**
 * Call every listener of `name` with `payload`. `ctx` is a context or, on the hot path, the raw
 * hook table from `eventHooks()`. Failures are reported through `onError` (default:
 * `console.error`) and never thrown.
 */
export function notify<K extends keyof Events & string>(
  ctx: Context | EventHooks,
  name: K,
  payload: Parameters<Events[K]>[0],
  onError: (error: unknown) => void = (error) => console.error(`[ptc-runner] listener of ${name} failed:`, error),
): void {
  let listeners: readonly ((...args: unknown[]) => unknown)[]
  try {
    const events = isEventHooks(ctx) ? ctx : eventHooks(ctx)
    listeners = listenersOf(events, name, 'emit', [payload])
  } catch (error) {
    // an `internal/dispatch` listener threw: observers are best-effort, the pipeline goes on
    onError(error)
    return
  }
  for (const listener of listeners) {
    try {
      const returned = listener(payload)
      if (isThenable(returned)) {
        returned.then(undefined, onError)
      }
    } catch (error) {
      onError(error)
    }
  }
}
