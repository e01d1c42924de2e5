/**
 * The code evaluated inside every isolate before the script (SPEC S9.1–S9.3). It is bundled
 * once into an IIFE string by `src/ptc/isolate/isolate-runtime-source.ts` and must stay self-contained:
 * it imports nothing from `src/` at run time (type imports only; `test/runtime/` enforces it),
 * never throws across the boundary, and keeps every host callback in closure variables so no
 * isolated-vm object is reachable from script code.
 *
 * Evaluating the bundle only captures built-ins (see `intrinsics.ts`). {@link installRuntime} is
 * called once per isolate while it is prepared, ahead of any run: it binds the host callbacks,
 * removes the unwanted globals and installs `ToolCallError` and `console`. The run then calls
 * `start` once with the script function and its tool names and limits, which installs `tools` and
 * calls the script, in one entry into the isolate.
 */
import type { HostCall, HostFinish, HostLog, InstallRuntime, RuntimeConfig, RuntimeControl, SettleEntry, Settlements } from './bridge-types.ts'
import { createConsole, type LogBudget } from './console-capture.ts'
import { createCallPromises, type CallUse } from './call-promise.ts'
import { createCallOutbox } from './call-outbox.ts'
import { createSteppedCallbacks } from './host-callbacks.ts'
import { removeGlobals } from './removed-globals.ts'
import { clip, describeConversionError, describeStack, describeThrown, errorJson } from './json-codec.ts'
import { isError } from './builtin-kind.ts'
import { toJsonLossless } from './lossless-json.ts'
import {
  CONFIGURABLE,
  defineData,
  ENUMERABLE,
  FunctionPrototypeBind,
  JSONParse,
  ObjectCreate,
  ObjectFreeze,
  OriginalPromise,
  OriginalProxy,
  WRITABLE,
  globalObject,
} from './intrinsics.ts'
import { ToolCallError, toolNameOf } from './tool-call-error.ts'
import { unknownToolTrap } from './tools-proxy.ts'
import { installDeferredReject, rejectSoon } from './reject-soon.ts'
import { ownConstructor } from './own-constructor.ts'

/** `settle`'s answer to an entry the host does not wait for: a symbol, which the host cannot copy (see `RuntimeControl.settle`). */
const KEEP_REJECTIONS = Symbol('ptc.keep-rejections') // Evaluated with the bundle, before any script.

interface PendingCall extends CallUse {
  toolName: string
  resolve: (value: unknown) => void
  reject: (reason: unknown) => void
  /** The promise the script holds; `handed` records what the script did with it (`call-promise.ts`). */
  promise: Promise<unknown>
}

/** Appended to the message of a thrown value that is not an Error, which has no stack (issue 11: errors come with their line). */
const NO_STACK_HINT = '(not an Error, so no line is known: throw new Error(…) to get one)'

export const installRuntime: InstallRuntime = function installRuntime(hostCall: HostCall, hostLog: HostLog, hostFinish: HostFinish, nowCall?: HostCall, nowLog?: HostLog, nowFinish?: HostFinish): RuntimeControl {
  // Each step's calls, logs and ending go through the callbacks of its kind (host-callbacks.ts).
  const host = createSteppedCallbacks({ call: hostCall, log: hostLog, finish: hostFinish }, nowCall && nowLog && nowFinish && { call: nowCall, log: nowLog, finish: nowFinish })
  // Set by `start`; until then no call can be made (and no script has started).
  let maxToolCalls = 0
  let maxCrossing = 0
  let started = false
  const logBudget = ObjectCreate(null) as LogBudget
  logBudget.maxLogUnits = 0
  logBudget.entryOverhead = 0
  const pending = ObjectCreate(null) as Record<number, PendingCall | undefined>
  let nextCallId = 1
  let callsStarted = 0
  /** Calls dispatched and not yet answered (the keys of `pending`). */
  let outstanding = 0
  let finished = false
  /** The script has ended and its outcome is being converted (its getters may run): calls are refused. */
  let ending = false
  const callPromises = createCallPromises()
  const outbox = createCallOutbox(host.call, refused)

  function callTool(toolName: string, args: unknown): Promise<unknown> {
    const refusal = refuseCall(toolName, args)
    if (typeof refusal !== 'string') {
      return new OriginalPromise<unknown>(function (_resolve, reject) {
        void rejectSoon(reject, refusal)
      })
    }
    const callId = nextCallId++
    let resolve!: PendingCall['resolve']
    let reject!: PendingCall['reject']
    const promise = callPromises.create(function (resolveCall, rejectCall) {
      resolve = resolveCall
      reject = rejectCall
    })
    const call: PendingCall = { toolName, resolve, reject, promise, handed: false }
    // Sent or queued, or it throws (the stack ran out) and nothing of the call is left: the
    // script gets the RangeError, the host never sees the call.
    outbox.push(callId, toolName, refusal, outstanding === 0)
    // From here nothing may throw: the call is on its way. Its answer comes in a later entry.
    pending[callId] = call
    outstanding++
    callsStarted++
    try {
      callPromises.track(promise, call) // What the script does with it (issue 11).
    } catch {
      // Out of stack: the call is then reported as not awaited rather than abandoned.
    }
    return promise
  }

  /** A call of a crossing the host did not take (it has gone away): rejected, no longer pending. */
  function refused(callId: number): void {
    const call = retire(callId)
    if (call !== undefined) void rejectSoon(call.reject, new ToolCallError(call.toolName, 'the host did not accept the call'))
  }

  /** Takes a pending call off the books (its outcome is about to reach the script); `undefined` when it is not pending. */
  function retire(callId: number): PendingCall | undefined {
    const call = pending[callId]
    if (call === undefined) return undefined
    delete pending[callId]
    outstanding--
    callPromises.forget(call.promise)
    return call
  }

  /** The arguments' JSON when the call may be made, otherwise the error to reject it with. */
  function refuseCall(toolName: string, args: unknown): string | ToolCallError {
    if (finished || ending) {
      return new ToolCallError(toolName, 'the script has already finished; this call was not made')
    }
    if (callsStarted >= maxToolCalls) {
      return new ToolCallError(toolName, `tool call limit reached: a run may make at most ${maxToolCalls} tool calls (maxToolCalls); this call was not made. Batch the work into fewer calls.`)
    }
    let argsJson: string
    try {
      argsJson = toJsonLossless(args === undefined ? {} : args, 'args') as string
    } catch (error) {
      return new ToolCallError(toolName, `the arguments cannot be sent as JSON: ${describeConversionError(error, 'arguments')}`)
    }
    if (argsJson.length > maxCrossing) {
      return new ToolCallError(toolName, `the arguments are too large: at least ${argsJson.length} bytes of JSON, the limit is ${maxCrossing} bytes (maxCrossingBytes); this call was not made`)
    }
    return argsJson
  }

  removeGlobals(globalObject)
  installDeferredReject()
  defineData(globalObject, 'ToolCallError', ToolCallError, WRITABLE | CONFIGURABLE)
  defineData(globalObject, 'console', createConsole(function log(level, text) {
    // The calls the script made before this line reach the host before it.
    outbox.flush()
    host.log(level, text)
  }, logBudget), WRITABLE | CONFIGURABLE)

  /** Sets the run's limits and installs `tools` with exactly its tool names. */
  function configure(configJson: string): void {
    const config = JSONParse(configJson) as RuntimeConfig
    maxToolCalls = config.maxToolCalls
    maxCrossing = config.maxCrossingBytes
    logBudget.maxLogUnits = config.maxLogBytes
    logBudget.entryOverhead = config.logEntryOverhead
    const tools = ObjectCreate(null) as Record<string, (args?: unknown) => Promise<unknown>>
    const names = config.toolNames
    for (let index = 0; index < names.length; index++) {
      const toolName = names[index]!
      const fn = FunctionPrototypeBind(callTool, undefined, toolName) as (args?: unknown) => Promise<unknown>
      defineData(fn, 'name', toolName, 0)
      defineData(tools, toolName, fn, ENUMERABLE)
    }
    ObjectFreeze(tools)
    defineData(globalObject, 'tools', new OriginalProxy(tools, unknownToolTrap(names)), 0)
  }

  /**
   * The calls whose outcome the script has not received, as `1,5,9` (no array method a script can
   * poison); with `handed`, only those whose promise the script had called `then` on.
   */
  function pendingIds(handed: boolean): string {
    let ids = ''
    // `pending` has a null prototype: for…in sees its own keys only.
    for (const callId in pending) {
      if (handed && !pending[callId as unknown as number]!.handed) continue
      ids = ids === '' ? callId : ids + ',' + callId
    }
    return ids
  }

  function finish(kind: 'value' | 'undefined' | 'error', payload: string): void {
    if (finished) return
    finished = true
    try {
      outbox.flush()
      host.finish(kind, payload, pendingIds(false), pendingIds(true))
    } catch {
      // The host has gone away (run ended by a limit); nothing to report to.
    }
  }

  function finishWithError(thrown: unknown): void {
    // Describing it runs the script's getters, proxy traps and toJSON: no call starts from them.
    ending = true
    const { name, message } = describeThrown(thrown)
    // A thrown string or plain object carries no stack: the model is told how to get a line.
    finish('error', errorJson(name, isError(thrown) ? message : `${message} ${NO_STACK_HINT}`, describeStack(thrown), toolNameOf(thrown)))
  }

  function finishWithValue(value: unknown): void {
    ending = true
    if (value === undefined) {
      finish('undefined', '')
      return
    }
    let json: string
    try {
      json = toJsonLossless(value, 'value') as string
    } catch (error) {
      finish('error', errorJson('TypeError', `the script's return value cannot be converted to JSON: ${describeConversionError(error, 'return value')}`))
      return
    }
    if (json.length > maxCrossing) {
      finish('error', errorJson('RangeError', `the script's return value is too large: at least ${json.length} bytes of JSON, the limit is ${maxCrossing} bytes (maxCrossingBytes). Return less, e.g. a summary or handles.`))
      return
    }
    finish('value', json)
  }


  async function awaitScript(promise: unknown): Promise<void> {
    try {
      let value: unknown
      try {
        value = await ownConstructor(promise)
      } catch (thrown) {
        finishWithError(thrown)
        return
      }
      finishWithValue(value)
    } catch (thrown) {
      finish('error', errorJson('Error', clip(`the runtime failed to report the result: ${describeThrown(thrown).message}`, 2_000)))
    }
  }

  /** See `RuntimeControl.start`. */
  function start(script: () => Promise<unknown>, configJson: string, now?: boolean): void {
    if (started) return
    started = true
    host.stepRunsNow(now === true)
    try {
      configure(configJson)
    } catch (thrown) {
      finish('error', errorJson('Error', clip(`the runtime could not be configured: ${describeThrown(thrown).message}`, 2_000)))
      return
    }
    try {
      void awaitScript(script())
    } catch (thrown) {
      finishWithError(thrown)
    }
  }

  /** See `RuntimeControl.settle`. */
  function settle(entry: SettleEntry, ...settlements: Settlements): symbol | undefined {
    host.stepRunsNow(entry === 'now')
    deliver(settlements)
    return entry === 'unobserved' ? KEEP_REJECTIONS : undefined
  }

  function deliver(settlements: Settlements): void {
    // After the script ended none of its code runs (issue 11): the host reports these calls.
    if (finished) return
    // A rest parameter is a fresh array read by index only: nothing a script changed is consulted.
    for (let index = 0; index + 2 < settlements.length; index += 3) {
      try {
        const callId = settlements[index] as number
        const text = settlements[index + 2] as string
        const call = retire(callId)
        if (call === undefined) continue
        if (!settlements[index + 1]) {
          call.reject(new ToolCallError(call.toolName, text))
          continue
        }
        let value: unknown
        try {
          value = JSONParse(text)
        } catch {
          call.reject(new ToolCallError(call.toolName, 'the tool result is not valid JSON'))
          continue
        }
        call.resolve(value)
      } catch {
        // One malformed entry must not stop the others.
      }
    }
  }

  const control = ObjectCreate(null) as RuntimeControl
  defineData(control, 'start', start, ENUMERABLE)
  defineData(control, 'settle', settle, ENUMERABLE)
  return ObjectFreeze(control)
}
