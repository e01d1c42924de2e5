/**
 * Isolates created ahead of time so a `run_code` run does not pay start-up (SPEC S9.1). A
 * prepared isolate has its context, the runtime prelude evaluated and `installRuntime` already
 * called (globals removed, `console` and `ToolCallError` installed, about half a millisecond a
 * run no longer waits for); its host callbacks forward to the `handlers` of the run that takes
 * it, which passes its tools and limits to `start` with the script. Every isolate serves exactly one run and
 * is disposed afterwards.
 */
import ivm from 'isolated-vm'
import type { HostCall, HostFinish, HostLog } from '../../../runtime/bridge-types.ts'
import { reportIsolateCatastrophe } from './isolate-catastrophe.ts'
import { warnWithoutNoNodeSnapshot } from './no-node-snapshot-warning.ts'
import { loadIsolateRuntimeSource } from './isolate-runtime-source.ts'
import { madeRuntimeSnapshot, RUNTIME_FILENAME, runtimeSnapshot, SNAPSHOT_INSTALL_GLOBAL } from './runtime-snapshot.ts'
import type { SettleReference } from './settle-entries.ts'

/** The runtime's `start` (`RuntimeControl.start`): the script function crosses as `derefInto()`, hence `unknown`. */
type StartReference = ivm.Reference<(script: unknown, configJson: string, now?: boolean) => void>

/** An isolate + context with the runtime prelude evaluated, ready for one run. */
export interface PreparedIsolate {
  readonly isolate: ivm.Isolate
  readonly context: ivm.Context
  /** The installed runtime's entry points inside `context` (see `RuntimeControl`). */
  readonly control: { readonly start: StartReference; readonly settle: SettleReference }
  /** Set by the run that owns the isolate: where the runtime's host callbacks go. */
  handlers: IsolateHandlers | undefined
  /** The isolate's heap limit in MB. */
  readonly memoryMb: number
  /** Whether it was made from the runtime snapshot (else the bundle was evaluated in it). */
  readonly fromSnapshot: boolean
  /** Set by the run that owns the isolate; called if isolated-vm reports a catastrophic error. */
  onCatastrophe: ((message: string) => void) | undefined
  /**
   * Set by the pool that handed the isolate out; the run calls it once it has ended and answered,
   * so the replacement is prepared after the run rather than during it.
   */
  onReleased?: (() => void) | undefined
  /**
   * Set by the pool that handed the isolate out: when the run's clean-up (disposing this isolate,
   * {@link onReleased}) happens once the run has answered. Without it, on the next turn
   * (`setImmediate`). See {@link IsolatePoolOptions.afterRun}.
   */
  afterRun?: ((cleanUp: () => void) => void) | undefined
}

/** The host side of the runtime's callbacks for one run (see `runtime/bridge-types.ts`). */
export interface IsolateHandlers {
  /** One tool call of the script (a crossing's `HostCall` triples are handed over one by one). */
  call: (callId: number, toolName: string, argsJson: string) => void
  log: HostLog
  finish: HostFinish
}

/** Options of {@link prepareIsolate}. */
export interface PrepareIsolateOptions {
  /** Heap limit in MB (isolated-vm `memoryLimit`, min 8). Default 128. */
  memoryMb?: number
  /**
   * Whether to make the runtime snapshot (`runtimeSnapshot`, about 11 ms idle and 40-55 ms at
   * load 7-8, once per process) when it does not exist yet. Default false: an isolate wanted now
   * evaluates the bundle instead (about a millisecond more), so no start-up or first run waits for
   * the snapshot; the pool makes it when it refills after a run.
   */
  makeSnapshot?: boolean
  /**
   * Whether the context and the runtime are made on the isolate's own thread (two asynchronous
   * entries) instead of the calling one. Default false: synchronous entries are quicker from start
   * to end, for a run waiting for the isolate; a pool's background refill sets it (unless
   * `prepareOffThread` is false), so the calling thread (the host's with `isolation: 'inline'`)
   * is busy only for `new ivm.Isolate` (about 1.1 ms) while runs go on (issue 12).
   */
  offThread?: boolean
}

/** The two kinds of host callbacks (see `prepareIsolate`), shared: isolated-vm keeps each options object its callbacks were made with. */
const [LATER, NOW] = [Object.freeze({ ignored: true }), Object.freeze({ sync: true })]

/** The entry that installs the runtime in a context made from the snapshot (see `prepareIsolate`). */
const SNAPSHOT_INSTALL = `const install = globalThis.${SNAPSHOT_INSTALL_GLOBAL}
delete globalThis.${SNAPSHOT_INSTALL_GLOBAL}
if (typeof install !== 'function') throw new Error('the isolate runtime snapshot has no installRuntime')
return install($0, $1, $2, $3, $4, $5)`

/**
 * Creates an isolate and context and evaluates the runtime prelude in it.
 * @throws Error when the runtime cannot be built or the isolate cannot be created (infrastructure).
 */
export async function prepareIsolate(options: PrepareIsolateOptions = {}): Promise<PreparedIsolate> {
  warnWithoutNoNodeSnapshot()
  const memoryMb = options.memoryMb ?? 128
  const runtime = await loadIsolateRuntimeSource()
  let prepared: PreparedIsolate | undefined
  const snapshot = options.makeSnapshot === true ? runtimeSnapshot(runtime.code) : madeRuntimeSnapshot(runtime.code)
  const isolate = new ivm.Isolate({
    memoryLimit: memoryMb,
    ...(snapshot !== undefined && { snapshot }),
    onCatastrophicError: (message) => {
      reportIsolateCatastrophe(message)
      prepared?.onCatastrophe?.(message)
    },
  })
  try {
    // Until a run sets `handlers` nothing can call back (no script runs before `start`).
    const forward = (): IsolateHandlers | undefined => prepared?.handlers
    const hostCall: HostCall = (...calls) => {
      const handlers = forward()
      if (handlers === undefined) return
      for (let index = 0; index + 2 < calls.length; index += 3) handlers.call(calls[index] as number, calls[index + 1] as string, calls[index + 2] as string)
    }
    const hostLog: HostLog = (level, text) => forward()?.log(level, text)
    const hostFinish: HostFinish = (kind, payload, pendingIds, handedIds) => forward()?.finish(kind, payload, pendingIds, handedIds)
    // Two sets (runtime/host-callbacks.ts): run on this thread's next turn, for a step on the
    // isolate's thread; run at once, for a step this thread runs itself (`SettleEntries.runNow`).
    const callbacks = [hostCall, hostLog, hostFinish, hostCall, hostLog, hostFinish].map((callback, index) => new ivm.Callback(callback, index < 3 ? LATER : NOW))
    // One entry takes `installRuntime` (off the global of a context made from the snapshot, else
    // by evaluating the bundle) and calls it with the host callbacks. `context.global` is never
    // read: it would be a Reference isolated-vm keeps after disposal, one a run.
    const install = snapshot !== undefined ? SNAPSHOT_INSTALL : `const installRuntime = (function () {\n${runtime.code}\n})()\nreturn installRuntime($0, $1, $2, $3, $4, $5)`
    const closure = { filename: RUNTIME_FILENAME, result: { reference: true } } as const
    let context: ivm.Context
    let control: ivm.Reference<Record<string, unknown>>
    if (options.offThread === true) {
      // Two asynchronous entries: the context and the runtime are made on the isolate's own
      // thread, leaving this one only the isolate itself (issue 12: 1.9 -> 1.5 ms of its CPU).
      context = await isolate.createContext()
      control = (await context.evalClosure(install, callbacks, closure)) as ivm.Reference<Record<string, unknown>>
    } else {
      // Synchronous entries: the isolate is fresh and runs only the runtime's own code here, so
      // each is short, and a run waiting for this isolate is not delayed by thread hand-overs.
      context = isolate.createContextSync()
      control = context.evalClosureSync(install, callbacks, closure) as ivm.Reference<Record<string, unknown>>
    }
    // `control` is a frozen null-prototype object of data properties: reading it runs no script code.
    const start = control.getSync('start', { reference: true }) as StartReference
    const settle = control.getSync('settle', { reference: true }) as SettleReference
    control.release()
    prepared = { isolate, context, control: { start, settle }, handlers: undefined, memoryMb, fromSnapshot: snapshot !== undefined, onCatastrophe: undefined }
    return prepared
  } catch (error) {
    disposeQuietly(isolate)
    throw error
  }
}

/** Disposes an isolate, ignoring "already disposed". */
export function disposeQuietly(isolate: ivm.Isolate): void {
  try {
    if (!isolate.isDisposed) isolate.dispose()
  } catch {
    // Already disposed by isolated-vm itself (memory limit).
  }
}

/** Options of an {@link IsolatePool}. */
export interface IsolatePoolOptions {
  /** Isolates kept ready (default 2; 0 disables pre-creation). */
  size?: number
  /** Heap limit in MB of the pooled isolates (default 128). Runs with another limit bypass the pool. */
  memoryMb?: number
  /**
   * When a run's clean-up (disposing its isolate, about 0.3 ms, and starting the replacement, see
   * `prepareOffThread`) happens once the run has answered: `afterRun(cleanUp)` schedules it.
   * Default: on the next turn (`setImmediate`). The isolate worker passes `RunHousekeeping`'s (issue 12).
   */
  afterRun?: (cleanUp: () => void) => void
  /**
   * Whether a refill makes the context and runtime on the isolate's thread (`offThread`: this
   * thread spends about 1.8 ms a preparation, nearly all `new ivm.Isolate`, else 2.5). Default
   * true: inline, this thread is the host's. The isolate worker passes false: two workers take
   * short runs in turn, so one refills while the other serves, and waking an isolate thread
   * competed with that run for the cores (S9.1, issue 12: back-to-back trivial runs 3.43 -> 3.05
   * ms). Made here, a preparation runs in one go; another the pool still lacks waits a turn.
   */
  prepareOffThread?: boolean
}

/**
 * A small pool of {@link PreparedIsolate}s, refilled in the background after each run, one
 * isolate at a time, off this thread except for `new ivm.Isolate` unless `prepareOffThread` is false.
 * It holds no timers and no handles of its own (an `afterRun` may), so it never keeps the process
 * alive; call `dispose()` to free the idle isolates.
 *
 * Start-up (issue 12): a new pool prepares one isolate, without the runtime snapshot, so the
 * first run (and the isolate worker's `ready`, sent after it) waits for one preparation only;
 * the first refill after a run makes the snapshot and fills the pool to `size`.
 */
export class IsolatePool {
  readonly size: number
  readonly memoryMb: number
  private readonly afterRun: ((cleanUp: () => void) => void) | undefined
  private readonly prepareOffThread: boolean
  private readonly idle: PreparedIsolate[] = []
  private filling = 0
  /** How many idle isolates a refill aims at, and whether it makes the runtime snapshot (see `refill`). */
  private target = 0
  private makeSnapshot = false
  /** take() calls waiting for an isolate being prepared (`undefined`: its preparation failed). */
  private readonly waiters: ((prepared: PreparedIsolate | undefined) => void)[] = []
  private disposed = false

  /** Isolates prepared and not taken yet (for tests and diagnostics). */
  get idleCount(): number { return this.idle.length }

  /** Isolates this pool has prepared, in the background and for a `take()` that found none (for tests and diagnostics). */
  readonly made = { background: 0, onDemand: 0 }

  constructor(options: IsolatePoolOptions = {}) {
    this.size = Math.max(0, Math.floor(options.size ?? 2))
    this.memoryMb = options.memoryMb ?? 128
    this.afterRun = options.afterRun
    this.prepareOffThread = options.prepareOffThread ?? true
    this.refill(Math.min(1, this.size), false)
  }

  /**
   * A prepared isolate for one run: an idle one if available, else one being prepared, otherwise
   * a fresh one. The caller owns it and must dispose it, then call its `onReleased` (the runner
   * does both when the run ends): the pool refills then, not now, because creating an isolate
   * blocks this thread for milliseconds that would otherwise land inside the run that just started.
   * @throws Error when the pool is disposed or an isolate cannot be created.
   */
  async take(): Promise<PreparedIsolate> {
    if (this.disposed) throw new Error('IsolatePool is disposed')
    // Nothing idle: the one being prepared, when one is not promised to another take() yet (a
    // second preparation would only queue behind it on this thread), else one prepared now.
    const ready = this.idle.shift() ?? (this.filling > this.waiters.length ? await new Promise<PreparedIsolate | undefined>((resolve) => this.waiters.push(resolve)) : undefined)
    if (this.disposed) {
      if (ready !== undefined) disposeQuietly(ready.isolate)
      throw new Error('IsolatePool is disposed')
    }
    if (ready === undefined) this.made.onDemand++
    const taken = ready ?? (await prepareIsolate({ memoryMb: this.memoryMb }))
    if (this.disposed) {
      // Disposed while this one was being made: no isolate outlives its pool.
      disposeQuietly(taken.isolate)
      throw new Error('IsolatePool is disposed')
    }
    // After the run: the snapshot, when not made yet, is made then, off every run's path.
    taken.onReleased = () => this.refill(this.size, true)
    taken.afterRun = this.afterRun
    return taken
  }

  /**
   * A fresh isolate of another memory limit (`memoryMb` MB), made now and not pooled, whose clean-up
   * follows this pool's `afterRun` like a pooled one's: the isolate worker counts every run toward
   * its heap collection (`RunHousekeeping`, issue 12), whatever its limit.
   * @throws Error when the pool is disposed or an isolate cannot be created.
   */
  async takeFresh(memoryMb: number): Promise<PreparedIsolate> {
    if (this.disposed) throw new Error('IsolatePool is disposed')
    const prepared = await prepareIsolate({ memoryMb })
    prepared.afterRun = this.afterRun
    prepared.onReleased = () => {} // So the runner hands every ending to afterRun, as with pooled ones.
    return prepared
  }

  /** Disposes the idle isolates; isolates being prepared are disposed when ready. Idempotent. */
  dispose(): void {
    this.disposed = true
    for (const prepared of this.idle.splice(0)) disposeQuietly(prepared.isolate)
    for (const waiter of this.waiters.splice(0)) waiter(undefined)
  }

  /**
   * Prepares isolates, one at a time, until `upTo` are idle; `makeSnapshot`: see
   * `PrepareIsolateOptions`. One at a time: each preparation blocks this thread for its
   * `new ivm.Isolate`, and two started together land in the same run (with back-to-back runs,
   * every other run then took 1.4 ms and the next 3.5; issue 12). An isolate handed to a waiting
   * `take()` does not end the refill: the pool ran dry, so runs are coming faster than it refills
   * (ending it there made back-to-back runs alternate between 1.1 and 3.7 ms).
   */
  private refill(upTo: number, makeSnapshot: boolean): void {
    this.target = Math.max(this.target, upTo)
    this.makeSnapshot ||= makeSnapshot
    if (this.disposed || this.filling > 0 || this.idle.length >= this.target) return
    this.filling++
    this.made.background++
    prepareIsolate({ memoryMb: this.memoryMb, makeSnapshot: this.makeSnapshot, offThread: this.prepareOffThread }).then(
      (prepared) => {
        this.filling--
        if (this.disposed) disposeQuietly(prepared.isolate)
        else if (this.waiters.length > 0) this.waiters.shift()!(prepared)
        else this.idle.push(prepared)
        if (this.prepareOffThread || this.idle.length >= this.target) this.refill(this.target, this.makeSnapshot)
        else setImmediate(() => this.refill(this.target, this.makeSnapshot))
      },
      () => {
        // A failed background preparation ends the refill (retrying at once could loop on a
        // process that cannot make isolates); take() prepares on demand and reports the error
        // to its caller, and the next run's release refills again.
        this.filling--
        this.waiters.shift()?.(undefined)
      },
    )
  }
}
