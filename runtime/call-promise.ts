/**
 * The promises `tools.name(args)` returns (issue 11): native promises whose prototype records
 * when the script hands one to something that reacts to it. `Promise.all`, `race`, `any` and
 * `allSettled` call each element's `then`, as do `.then`, `.catch` and `.finally`; so a call still
 * running when the script ended is told apart as one it never reacted to (`unawaited-calls`) or
 * one it had passed on, typically the sibling of a failed call in a `Promise.all` the script
 * caught (`abandoned-calls`).
 *
 * The prototype sits between the promise and `Promise.prototype` and has its own `constructor`,
 * the original `Promise`: `await p` (which reads only `p.constructor`) keeps V8's direct path,
 * and `then` gives exactly what the built-in gives, since it calls the captured original with
 * the same arguments. Nothing is added to each promise: the record of a call is found in a
 * captured `Map` by the promise's identity. Follows `intrinsics.ts`'s rules.
 */
import {
  CONFIGURABLE,
  defineData,
  MapPrototypeDelete,
  MapPrototypeGet,
  MapPrototypeSet,
  ObjectCreate,
  OriginalMap,
  OriginalPromise,
  PromisePrototypeThen,
  ReflectApply,
  ReflectConstruct,
  WRITABLE,
} from './intrinsics.ts'

/** What a call's promise records about the script's use of it. */
export interface CallUse {
  /** Set once the script called `then` on the promise (directly or through a combinator). */
  handed: boolean
}

/** Makes the promises of one isolate's tool calls; see the file comment. */
export interface CallPromises {
  /** `new Promise(executor)`, with the recording prototype. */
  create(executor: (resolve: (value: unknown) => void, reject: (reason: unknown) => void) => void): Promise<unknown>
  /** Starts recording `use` for `promise` (a dispatched call). */
  track(promise: Promise<unknown>, use: CallUse): void
  /** Stops recording for `promise` (its outcome reached the script). */
  forget(promise: Promise<unknown>): void
}

/** The recording promises of one isolate (one run). Never throws beyond what `new Promise` throws. */
export function createCallPromises(): CallPromises {
  const uses = new OriginalMap<unknown, CallUse>()
  const prototype = ObjectCreate(OriginalPromise.prototype) as object
  defineData(prototype, 'constructor', OriginalPromise, WRITABLE | CONFIGURABLE)
  defineData(
    prototype,
    'then',
    function then(this: unknown, onFulfilled?: unknown, onRejected?: unknown): unknown {
      const use = MapPrototypeGet(uses, this) as CallUse | undefined
      if (use !== undefined) use.handed = true
      return ReflectApply(PromisePrototypeThen, this, [onFulfilled, onRejected])
    },
    WRITABLE | CONFIGURABLE,
  )
  // The new-target whose `prototype` the promises get (read as an own data property).
  const newTarget = function CallPromise(): void {}
  defineData(newTarget, 'prototype', prototype, 0)

  const promises = ObjectCreate(null) as CallPromises
  defineData(promises, 'create', (executor: (resolve: (value: unknown) => void, reject: (reason: unknown) => void) => void) => ReflectConstruct(OriginalPromise, [executor], newTarget) as Promise<unknown>, 0)
  defineData(promises, 'track', (promise: Promise<unknown>, use: CallUse) => void MapPrototypeSet(uses, promise, use), 0)
  defineData(promises, 'forget', (promise: Promise<unknown>) => void MapPrototypeDelete(uses, promise), 0)
  return promises
}
