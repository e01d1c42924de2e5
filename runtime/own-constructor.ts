/**
 * How the runtime awaits the promise of the script's function without the script diverting it.
 * Follows `intrinsics.ts`'s rules.
 */
import { defineData, OriginalPromise } from './intrinsics.ts'

/**
 * `promise` (the script wrapper's, which the script never holds) with an own `constructor` data
 * property holding the original `Promise`. `await p` reads `p.constructor` and takes V8's direct
 * path only when it is the original; a script that replaced `Promise.prototype.constructor` and
 * `then` would otherwise divert the runtime's await of its result. Only this one promise: an own
 * property on every tool-call promise costs memory in a burst, and locking
 * `Promise.prototype.constructor` turns off V8's promise fast paths for the whole run.
 */
export function ownConstructor(promise: unknown): unknown {
  if (typeof promise === 'object' && promise !== null) {
    try {
      defineData(promise, 'constructor', OriginalPromise, 0)
    } catch {
      // Not extensible: then it is not the wrapper's native promise, and is awaited as it is.
    }
  }
  return promise
}
