/**
 * Whether a listener's or policy's answer is to be awaited: any value with a callable `then`
 * (a promise or another thenable, as `await` and `Promise.resolve` treat it; ECMA-262 §27.2.1.3.2).
 * The pipeline awaits only those, so a synchronous answer costs no microtask turn (issue 12).
 */
export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null | undefined)?.then === 'function'
}
