/**
 * `Host.ctx` with its services looked up once (issue 12). Through a cordis context, every
 * `ctx.tools` builds its answer again: an `Error` for the message a missing service would get
 * (a stack trace captured), the `internal/get` event, and a new tracing proxy. That is 8-9 µs a
 * lookup on a busy thread and 100-150 µs on one that slept 50 ms (CPU profile of a trivial run
 * after a pause): the `host.ctx.tools.execute(...)` of every call a library user makes.
 *
 * The context handed out answers the host's own services (`HOST_SERVICES`) from a cache filled on
 * first use with exactly what cordis answered then (the same tracing proxy, bound to the same
 * context), and passes everything else to the cordis context unchanged. The cache is emptied
 * when cordis announces a change of one of those services (`internal/service`: a plugin stopped,
 * restarted or replaced it) and for good by `clear()` (the host's dispose), so a lookup is then
 * answered as cordis would, or refused with an error saying the host was disposed. Not the same: `host.ctx` is this proxy, not the cordis
 * context itself (`host.ctx.fiber.ctx !== host.ctx`), and a cached lookup does not emit cordis'
 * `internal/get`.
 */
import type { Context } from 'cordis'

/** A context answering `names` from a cache; see the file comment. */
export interface CachedServices {
  readonly ctx: Context
  /** Forget the cached services: later lookups go to cordis again. */
  clear(): void
}

/**
 * A host service looked up after the host's dispose: what cordis answers, or, where cordis refuses
 * ("cannot get required service … in inactive context"), an error that says what happened and
 * what to do.
 * @throws Error `host.ctx.<name> is gone: this host was disposed …` when cordis refuses.
 */
function afterDispose(target: Context, prop: PropertyKey): unknown {
  try {
    return Reflect.get(target, prop)
  } catch {
    throw new Error(`host.ctx.${String(prop)} is gone: this host was disposed (host.dispose()). Make a new host with createHost() for more calls.`)
  }
}

/** Wraps `services` (a cordis context that injects every one of `names`). */
export function cacheServices(services: Context, names: readonly string[]): CachedServices {
  const cached = new Map<PropertyKey, unknown>()
  let active = true
  const wanted = new Set<PropertyKey>(names)
  // A service of the host stopped, restarted or replaced: cordis decides again (it may refuse
  // every lookup of a context whose injected service is gone, not only that one).
  services.on('internal/service', (name: string) => {
    if (wanted.has(name)) cached.clear()
  })
  const ctx: Context = new Proxy(services, {
    get(target, prop, receiver) {
      // A context derived from this one (`extend`, `intercept`...) reads through it with itself
      // as the receiver: cordis answers it, as it would without this proxy.
      if (receiver !== ctx) return Reflect.get(target, prop, receiver)
      if (!wanted.has(prop)) return Reflect.get(target, prop)
      if (!active) return afterDispose(target, prop)
      if (cached.has(prop)) return cached.get(prop)
      // Read with the cordis context itself as the receiver: the tracing proxy is bound to it.
      const value: unknown = Reflect.get(target, prop)
      cached.set(prop, value)
      return value
    },
    set(target, prop, value, receiver) {
      cached.delete(prop)
      return receiver === ctx ? Reflect.set(target, prop, value) : Reflect.set(target, prop, value, receiver)
    },
  })
  return {
    ctx,
    clear() {
      active = false
      cached.clear()
    },
  }
}
