/**
 * Nothing vanishes at return (issue 11): what a script left behind, kept by its isolate run and
 * reported as the result's `warnings`. Three kinds:
 * - `unawaited-calls`: tool calls whose outcome had not reached the script when it ended and
 *   that it never reacted to (no `await` reached them, no `then`; the runtime's own list). The
 *   run waits for them (within its deadline) rather than cutting them off, so each one either
 *   completed or failed and the journal agrees; none of the script's code runs after it ended,
 *   so a `.then` on such a call never runs.
 * - `abandoned-calls`: the same, for calls the script had passed to something that reacts to
 *   them (`Promise.all`, `race`, `any`, `.then`/`.catch`/`.finally`: the runtime saw their
 *   `then` called), typically the siblings of a call whose failure rejected a `Promise.all` the
 *   script caught before it returned. They are waited for in the same way.
 * - `unhandled-rejection`: a promise that rejected with nothing awaiting or catching it by the end
 *   of that turn of the isolate (Node's rule for `unhandledRejection`): isolated-vm reports the
 *   first such rejection of each entry into the isolate the run waits on (every one but a batch
 *   of successes answering the only call outstanding, issue 12).
 */
import type { Settlement } from '../../../runtime/bridge-types.ts'
import type { IsolateRunWarning } from './isolate-contract.ts'
import { scriptFrames } from './script-frames.ts'

/** Calls named in an `unawaited-calls` message; the rest are counted. */
const NAMED_CALLS = 3
/** `unhandled-rejection` warnings kept; further ones are counted in the last. */
const MAX_REJECTIONS = 10
/** Where a call waited that the run's end left unmade (the tool-call queue's two limits). */
const QUEUED = 'still queued for a free slot (maxCallsInFlight, or maxCrossingBytes for the arguments in flight)'
/** The outcome of every call that succeeded (only failures keep a text). */
const SUCCEEDED = Object.freeze({ ok: true, text: '' })
/** Characters of a call's arguments shown to tell it apart. */
const ARGS_PREVIEW = 60

interface TrackedCall {
  /** Its number in the run (`IsolateToolCall.callId`). */
  id: number
  name: string
  /** The start of the arguments' JSON, copied (a slice would keep the whole text alive). */
  args: string
  /** Set once its outcome is known (a failure's message clipped). */
  outcome?: { readonly ok: boolean; readonly text: string }
  /** Set when the script ended before its outcome reached it: the run waits for it. */
  waited?: boolean
  /** Set when the run ended with the call still queued (maxCallsInFlight, maxCrossingBytes): it was never made. */
  notMade?: boolean
}

/** One run's leftovers; see the file comment. All methods are cheap (O(1) a call) and never throw. */
export class RunWarnings {
  /** Every call the host accepted, by call id, in a compact form. */
  readonly #calls = new Map<number, TrackedCall>()
  /** The calls still pending inside the isolate when the script ended and never reacted to (the runtime's own list). */
  #unawaited: TrackedCall[] | undefined
  /** The pending calls the script had handed to `Promise.all`, `.then` and the like. */
  #abandoned: TrackedCall[] = []
  /** The first call whose failure was sent to the script before it ended. */
  #firstFailure: TrackedCall | undefined
  /** Waited-for calls without an outcome yet. */
  #stillRunning = 0
  #ending = 'returned'
  /** What stopped the script's code still running after it ended ({@link stoppedAfterEnd}). */
  #keptRunning: string | undefined
  readonly #rejections: IsolateRunWarning[] = []
  #moreRejections = 0

  /** The script called a tool (before the call is checked: a refusal is an outcome too). Untrusted values. */
  called(callId: unknown, name: unknown, argsJson: unknown): void {
    if (this.#unawaited !== undefined || typeof callId !== 'number' || typeof name !== 'string' || typeof argsJson !== 'string') return
    this.#calls.set(callId, { id: callId, name, args: argsPreview(argsJson) })
  }

  /** A call's outcome, as it is sent toward the isolate. */
  outcome(callId: number, ok: boolean, text: string): void {
    const call = this.#calls.get(callId)
    if (call === undefined || call.outcome !== undefined) return
    call.outcome = ok ? SUCCEEDED : { ok, text: copyClipped(text, 300) }
    if (call.waited === true) this.#stillRunning--
    else if (!ok && this.#unawaited === undefined) this.#firstFailure ??= call
  }

  /**
   * These calls' successes have reached the script (a step ran to its end on this thread): they
   * can no longer be left behind, so they are forgotten and a long sequential run keeps no
   * record a call (issue 12: each outlived many young collections). Failures stay: the first may
   * explain a later warning.
   */
  delivered(settlements: readonly Settlement[]): void {
    for (const [callId, ok] of settlements) if (ok) this.#calls.delete(callId)
  }

  /**
   * The script ended (`how`: `returned` or `threw`). `pendingIds` is the runtime's list of the
   * calls whose outcome it had not received (comma-separated ids), `handedIds` those of them
   * whose promise it had called `then` on; the others it did not await.
   */
  scriptEnded(how: 'returned' | 'threw', pendingIds: unknown, handedIds: unknown): void {
    if (this.#unawaited !== undefined) return
    this.#ending = how
    this.#unawaited = []
    if (typeof pendingIds !== 'string' || pendingIds === '') return
    const handed = new Set(typeof handedIds === 'string' && handedIds !== '' ? handedIds.split(',') : [])
    for (const id of pendingIds.split(',')) {
      const call = this.#calls.get(Number(id))
      if (call === undefined) continue
      ;(handed.has(id) ? this.#abandoned : this.#unawaited).push(call)
      call.waited = true
      if (call.outcome === undefined) this.#stillRunning++
    }
    // A failure still on its way when the script ended is one it never saw.
    if (this.#firstFailure?.waited === true) this.#firstFailure = undefined
  }

  /** The run ended with these calls still queued, never handed to the host (not made). */
  notMade(callIds: readonly number[]): void {
    for (const callId of callIds) {
      const call = this.#calls.get(callId)
      if (call !== undefined && call.outcome === undefined) call.notMade = true
    }
  }

  /**
   * The script had ended, but its code was still running (an entry into the isolate had not
   * returned: a loop in a callback or promise chain it started) when `stoppedBy` ended the run.
   */
  stoppedAfterEnd(stoppedBy: string): void {
    this.#keptRunning = stoppedBy
  }

  /** Whether a call the run waits for is still without an outcome. */
  get waiting(): boolean {
    return this.#stillRunning > 0
  }

  /** isolated-vm reported a rejection nothing handled (the error it copied out of the isolate). */
  rejection(error: unknown): void {
    if (this.#rejections.length === MAX_REJECTIONS) {
      this.#moreRejections++
      return
    }
    const frames = scriptFrames(error instanceof Error ? error.stack : undefined)
    const message = `Unhandled promise rejection: ${sentence(describeReason(error))} Nothing awaited or caught this promise when it rejected; await every promise the script starts (Promise.all for many).`
    this.#rejections.push({ kind: 'unhandled-rejection', message, ...(frames.length > 0 && { frames }) })
  }

  /**
   * The warnings of the run as it ends now. Calls still waited for were cancelled by `stoppedBy`
   * (what ended the wait: `the run's wall-clock limit`, `the caller's cancel`).
   */
  list(stoppedBy: string): IsolateRunWarning[] {
    const warnings: IsolateRunWarning[] = []
    const unawaited = this.#unawaited ?? []
    if (unawaited.length > 0) warnings.push({ kind: 'unawaited-calls', message: describeUnawaited(unawaited, this.#ending, stoppedBy, this.#abandoned.length === 0 ? this.#firstFailure : undefined), calls: callsOf(unawaited) })
    if (this.#abandoned.length > 0) warnings.push({ kind: 'abandoned-calls', message: describeAbandoned(this.#abandoned, this.#ending, stoppedBy, this.#firstFailure), calls: callsOf(this.#abandoned) })
    if (this.#keptRunning !== undefined) {
      warnings.push({ kind: 'kept-running', message: `The script ${this.#ending}, but its code kept running after that (a loop in a callback or promise chain it had started) until ${this.#keptRunning} stopped it; its result stands. Make sure nothing the script starts keeps running once it returns.` })
    }
    warnings.push(...this.#rejections)
    if (this.#moreRejections > 0) {
      warnings.push({ kind: 'unhandled-rejection', message: `${this.#moreRejections} more unhandled promise rejection${this.#moreRejections === 1 ? ' was' : 's were'} not listed.` })
    }
    return warnings
  }
}

/**
 * Calls the script never reacted to with `then`, still running when it ended. An `await` inside
 * an async callback is no `then` the runtime can see (V8 awaits a native promise directly): after
 * a failure, the likelier story is `Promise.all(list.map(async (x) => await tools.f(x)))`
 * rejecting at that failure while the other callbacks still awaited their calls, so the message
 * then tells that story and its fix (`Promise.allSettled`) instead of "await every tool call".
 * `firstFailure` is left out when calls were also abandoned (a `then` was seen: that story is
 * told by the `abandoned-calls` warning, and these were then truly not awaited).
 */
function describeUnawaited(calls: readonly TrackedCall[], ending: string, stoppedBy: string, firstFailure: TrackedCall | undefined): string {
  const one = calls.length === 1
  const waited = `The run waited for ${one ? 'it' : 'them'}: ${describeOutcomes(calls, stoppedBy)}. The script never saw ${one ? 'its result' : 'their results'}`
  if (firstFailure !== undefined) {
    return (
      `${calls.length} tool call${one ? ' was' : 's were'} still running when the script ${ending}, with nothing left waiting for ${one ? 'it' : 'them'}: ${nameCalls(calls)}. ` +
      `Before that, ${describeCall(firstFailure)} failed (${firstFailure.outcome!.text}): if these calls were awaited inside callbacks passed to Promise.all (list.map(async (x) => await tools.…)), ` +
      `the Promise.all rejected at that failure without waiting for the other callbacks. ${waited}; to wait for every call, await Promise.allSettled, or await every tool call.`
    )
  }
  return `${calls.length} tool call${one ? ' was' : 's were'} not awaited, still running when the script ${ending}: ${nameCalls(calls)}. ${waited}; await every tool call.`
}

/** Calls the script had passed to `Promise.all`, `.then` and the like, still running when it ended. */
function describeAbandoned(calls: readonly TrackedCall[], ending: string, stoppedBy: string, firstFailure: TrackedCall | undefined): string {
  const one = calls.length === 1
  const failure = firstFailure === undefined ? '' : `Before that, ${describeCall(firstFailure)} failed (${firstFailure.outcome!.text}), and a Promise.all rejects at its first failure without waiting for the rest. `
  return (
    `${calls.length} tool call${one ? ' was' : 's were'} still running when the script ${ending}, although it had passed ${one ? 'it' : 'them'} to Promise.all (or race, any, .then): ${nameCalls(calls)}. ` +
    failure +
    `The run waited for ${one ? 'it' : 'them'}: ${describeOutcomes(calls, stoppedBy)}. The script never saw ${one ? 'its result' : 'their results'}; to wait for every call, await Promise.allSettled.`
  )
}

/** Each call's number and how the messages name it, in order (`IsolateRunWarning.calls`). */
const callsOf = (calls: readonly TrackedCall[]): { id: number; call: string }[] => calls.map((call) => ({ id: call.id, call: describeCall(call) }))

function nameCalls(calls: readonly TrackedCall[]): string {
  return calls.slice(0, NAMED_CALLS).map(describeCall).join(', ') + (calls.length > NAMED_CALLS ? `, and ${calls.length - NAMED_CALLS} more` : '')
}

/** How the waited-for `calls` ended: `it succeeded`, `2 succeeded, 1 failed (the first: …)`. */
function describeOutcomes(calls: readonly TrackedCall[], stoppedBy: string): string {
  const failed = calls.filter((call) => call.outcome?.ok === false)
  const notMade = calls.filter((call) => call.outcome === undefined && call.notMade === true).length
  const cancelled = calls.filter((call) => call.outcome === undefined).length - notMade
  const succeeded = calls.length - failed.length - cancelled - notMade
  const firstFailure = failed[0] === undefined ? '' : `${describeCall(failed[0])}: ${failed[0].outcome!.text}`
  if (calls.length === 1) {
    if (notMade === 1) return `${stoppedBy} came while it was ${QUEUED}, so it was not made`
    return succeeded === 1 ? 'it succeeded' : cancelled === 1 ? `${stoppedBy} cancelled it before it finished (it may or may not have taken effect)` : `it failed (${firstFailure})`
  }
  return [
    succeeded > 0 ? `${succeeded} succeeded` : '',
    failed.length > 0 ? `${failed.length} failed (the first: ${firstFailure})` : '',
    cancelled > 0 ? `${stoppedBy} cancelled ${cancelled} before ${cancelled === 1 ? 'it' : 'they'} finished (${cancelled === 1 ? 'it' : 'each'} may or may not have taken effect)` : '',
    notMade > 0 ? `${notMade} ${notMade === 1 ? 'was' : 'were'} ${QUEUED} and ${notMade === 1 ? 'was' : 'were'} not made` : '',
  ]
    .filter((text) => text !== '')
    .join(', ')
}

/**
 * The start of a call's arguments' JSON as warnings and endings show it, to tell it from another
 * call of its tool: at most {@link ARGS_PREVIEW} characters, then `…`, copied (a slice would keep
 * the whole text alive).
 */
export function argsPreview(argsJson: string): string {
  return copyClipped(argsJson, ARGS_PREVIEW)
}

function describeCall(call: TrackedCall): string {
  return `${call.name} ${call.args}`
}

/** At most `max` characters of `text` (and `…`), in a string of their own. */
function copyClipped(text: string, max: number): string {
  return text.length <= max ? text : `${Buffer.from(text.slice(0, max)).toString()}…`
}

/** How isolated-vm 7.0.1 says a non-Error object was thrown (`ExternalCopy::CopyThrownValue`). */
const IVM_OBJECT_THROWN = 'An object was thrown from supplied code within isolated-vm'

/**
 * A rejection's reason as the warning says it: an Error as `name: message`, a string as it is,
 * a primitive by its value (`42`, `10n`), as a thrown value is (S9.3), since it has no stack and
 * so no line; an object by its kind (isolated-vm does not copy it out).
 */
function describeReason(reason: unknown): string {
  // isolated-vm copies a rejected non-Error object out as this Error, without the object.
  if (reason instanceof Error && reason.message.startsWith(IVM_OBJECT_THROWN)) return 'a non-Error object (not an Error, so neither its value nor its line is known: reject with new Error(…) to get them)'
  if (reason instanceof Error) return clip(`${reason.name}: ${reason.message}`, 2_000)
  if (typeof reason === 'string') return clip(reason, 2_000)
  return `a non-Error value: ${clip(valueText(reason), 2_000)} (not an Error, so no line is known: reject with new Error(…) to get one)`
}

/** A primitive copied out of the isolate, as text; anything else as JSON where it can be. */
function valueText(value: unknown): string {
  if (typeof value === 'bigint') return `${value}n`
  if (typeof value === 'number') return Object.is(value, -0) ? '-0' : String(value)
  if (value === null || value === undefined || typeof value === 'boolean') return String(value)
  try {
    const json = JSON.stringify(value)
    if (json !== undefined) return json
  } catch {
    // A cycle or a getter that throws: named by its kind below.
  }
  return Object.prototype.toString.call(value)
}

/** `text` ending as a sentence: a period added unless it ends with one (or `?`, `!`, `…`). */
function sentence(text: string): string {
  return /[.?!…]$/.test(text) ? text : `${text}.`
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text
}
