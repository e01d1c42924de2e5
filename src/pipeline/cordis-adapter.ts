/**
 * The one place that reaches into cordis internals (cordis 4.0.0-rc.10, pinned exactly in
 * package.json; test/unit/pipeline/cordis-adapter.test.ts pins the version and the behaviour this
 * relies on, so an upgrade fails there first). cordis has no public API for either need:
 * - reading a hook table without the per-access proxies (`EventsService._hooks`);
 * - tracing a service without its per-call "shadow" proxies (the `Service.tracker` record).
 *
 * Direct dispatch over cordis' event hooks for the pipeline's hot path (SPEC S3). Every
 * `ctx.waterfall()` / `ctx.events` access goes through cordis' context proxies, which allocate
 * several Proxies and a derived context per access; a tool call dispatches five hooks, so the
 * pipeline resolves the raw `EventsService` once and reads its hook table directly.
 *
 * Semantics are those of cordis 4.0.0-rc.10 (pinned exactly) for dispatch without a `this`
 * argument: listeners are snapshotted in registration order (prepend respected, since that is how
 * the table is kept), `internal/dispatch` is still emitted when something listens to it, and a
 * waterfall listener may call `next()` only once. The unit tests pin this behaviour (ordering,
 * prepend, disposal) so a cordis upgrade that changes the table fails loudly.
 */
import { type Context, type Service, symbols } from 'cordis'

type Listener = (...args: any[]) => any

/** The part of cordis' `EventsService` the pipeline reads. */
export interface EventHooks {
  readonly _hooks: Record<string | symbol, readonly { callback: Listener }[] | undefined>
  emit(...args: unknown[]): void
}

/** The raw events service behind `ctx.events` (no per-access proxies). */
export function eventHooks(ctx: Context): EventHooks {
  const traced = ctx.events as unknown as Record<symbol, unknown>
  return ((traced[symbols.original] as EventHooks | undefined) ?? (traced as unknown as EventHooks))
}

/**
 * The service object behind cordis' tracing proxy (`ctx.tools` → the `ToolRegistry` itself), for
 * a hot path that calls it many times: every method access through the proxy costs a trap.
 * Only for methods that do not read `this.ctx` (the caller's context is lost).
 */
export function untraced<T extends object>(service: T): T {
  return ((service as Record<symbol, unknown>)[symbols.original] as T | undefined) ?? service
}

/** Is `value` the raw events service (a Context proxy answers any property; the service owns its table)? */
export function isEventHooks(value: object): value is EventHooks {
  return Object.hasOwn(value, '_hooks')
}

/**
 * Speed (bench/pipeline.bench.ts): cordis traces every `ctx.<service>.<method>` access so that
 * `this.ctx` inside a method is the calling plugin's context (what makes `register`/`guard`
 * belong to its fiber, S1.4). By default it also wraps each method in a fresh "shadow" proxy bound
 * to a derived context and, for an `associate`d service, looks up `ctx.reflect.props` on every
 * access: together about 80% of the pipeline's per-call overhead. The tracing proxy alone already
 * answers `this.ctx` with the caller's context (cordis' own events service is traced the same way,
 * `noShadow`), so shadowing is switched off. `associate` only serves cordis' dotted
 * sub-properties (`ctx.provide('tools.x')` surfacing as `ctx.tools.x`), which nothing here uses;
 * it is dropped. Call from the service's constructor, after `super()`.
 */
export function traceWithoutShadow(service: Service): void {
  const tracker = (service as unknown as Record<symbol, { noShadow?: boolean; associate?: string }>)[symbols.tracker]!
  tracker.noShadow = true
  delete tracker.associate
}

/** Marks a reflect service whose `bind` {@link bindListenersWithoutProxyTraps} already replaced. */
const FAST_BIND = Symbol('ptc.fastBind')

/**
 * Speed (bench/pipeline.bench.ts, issue 12): every `ctx.on(...)` listener is wrapped by cordis'
 * `reflect.bind` in an apply proxy that traces `this` and each argument into the listening
 * plugin's context (so a service passed to it answers `this.ctx` as that plugin). cordis' wrapper
 * reaches `trace` and `ctx` through the reflect service's own tracing proxy, two proxy traps per
 * argument and per call: with three policies on `tools/pre-execute` that was about a third of the
 * pipeline's overhead. This `bind` does the same tracing (cordis' own `trace`, with the listening
 * plugin's context read once at `ctx.on` time, exactly what the proxy answered for `this.ctx`)
 * without the traps. Listeners registered before this ran keep cordis' wrapper. Idempotent.
 */
export function bindListenersWithoutProxyTraps(ctx: Context): void {
  const reflect = untraced(ctx.reflect) as unknown as Record<PropertyKey, unknown> & { trace: (value: unknown) => unknown }
  if (reflect[FAST_BIND] === true) return
  const trace = reflect.trace
  Object.defineProperty(reflect, FAST_BIND, { value: true })
  Object.defineProperty(reflect, 'bind', {
    configurable: true,
    writable: true,
    value: function bind(this: { ctx: Context }, callback: Listener): Listener {
      // `this` is the reflect service as the listening plugin reached it: its `ctx` is that plugin's.
      const site = { ctx: this.ctx }
      // cordis' `trace` changes only a value that carries a tracker (a service, a context) or is a
      // shadow; anything else (the pipeline's executions, `next`) is passed as it is, without the call.
      const traced = (value: unknown): unknown =>
        value !== null && (typeof value === 'object' || typeof value === 'function') && ((value as Record<symbol, unknown>)[symbols.tracker] !== undefined || Object.hasOwn(value, symbols.shadow))
          ? trace.call(site, value)
          : value
      // A plain function, not cordis' apply proxy: a call through a Proxy costs a trap (issue 12).
      return function boundListener(this: unknown, ...args: unknown[]): unknown {
        for (let index = 0; index < args.length; index++) args[index] = traced(args[index])
        return Reflect.apply(callback, traced(this), args)
      }
    },
  })
}

const NONE: readonly Listener[] = Object.freeze([])

/** Snapshot of the listeners of `name`, as cordis' `_resolve` returns them for a dispatch. */
export function listenersOf(events: EventHooks, name: string, mode: 'emit' | 'waterfall' | 'bail', args: readonly unknown[]): readonly Listener[] {
  const hooks = events._hooks
  if (hooks['internal/dispatch']?.length) events.emit('internal/dispatch', mode, name, [...args], null)
  const list = hooks[name]
  if (!list || list.length === 0) return NONE
  const callbacks = new Array<Listener>(list.length)
  for (let index = 0; index < list.length; index++) callbacks[index] = list[index]!.callback
  return callbacks
}

/**
 * cordis' `bail` without a `this` argument (`ctx.bail(name, ...args)`): listeners in order until
 * one answers something other than `null`, `undefined` or `false`, which is returned. For a
 * policy on the hot path: `ctx.bail` costs a context-proxy lookup per call.
 * @throws whatever a listener throws.
 */
export function bail<R>(events: EventHooks, name: string, args: readonly unknown[]): R | undefined {
  const callbacks = listenersOf(events, name, 'bail', args)
  for (const callback of callbacks) {
    const result = callback(...args) as R | null | false | undefined
    if (result !== null && result !== false && result !== undefined) return result
  }
  return undefined
}

/**
 * cordis' waterfall: each listener gets `(...args, next)` and returns a decision or `next()`;
 * the innermost answer is `inner()`. `next()` may be called once per listener.
 * @throws whatever a listener throws, and an Error when a listener calls `next()` twice.
 */
export function waterfall<R>(events: EventHooks, name: string, args: readonly unknown[], inner: () => R): R {
  const callbacks = listenersOf(events, name, 'waterfall', args)
  if (callbacks.length === 0) return inner()
  let index = 0
  const dispatch = (): R => {
    const callback = callbacks[index++]
    if (!callback) return inner()
    let called = false
    const next = () => {
      if (called) throw new Error('next() called multiple times')
      called = true
      return dispatch()
    }
    return callback(...args, next)
  }
  return dispatch()
}
