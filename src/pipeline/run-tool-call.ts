/**
 * The run of one tool call through the whole pipeline (SPEC S3–S6), in this order:
 * materialize + freeze arguments → validate → `tools/pre-execute` waterfall → guards → (`ask` →
 * approval) → `tools/execute` wrappers → body → output validation → render → `projectContent` →
 * `tools/post-execute` waterfall → `finalizeContent` (exactly once, failures included) →
 * deep-frozen `ToolResult` → `tools/result` observers (failures isolated).
 * Every failure becomes an `isError` result; nothing escapes as an exception (S6.5).
 */
import type { Context } from 'cordis'
import { z } from 'zod'
import { describeThrown } from '../errors/describe-thrown.ts'
import { ToolDeniedError, ToolTimeoutError } from '../errors/ptc-error.ts'
import type { Tool } from '../tools/define-tool.ts'
import type {
  ContentBlock,
  ExecuteOptions,
  JsonValue,
  PendingResult,
  PostToolDecision,
  PreToolDecision,
  ToolCall,
  ToolExecution,
  ToolGuard,
  ToolResult,
} from '../tools/types.ts'
import { type EventHooks, listenersOf, waterfall } from './hooks.ts'
import { deepFreeze, materializeJson } from './materialize.ts'
import { notify } from './notify.ts'
import { requestApproval } from './request-approval.ts'
import { CANCELLED_MESSAGE, errorContent, normalizeContent, type ResultError } from './results.ts'

/** What the pipeline needs from the registry. */
export interface PipelineHost {
  readonly ctx: Context
  /** The raw hook table of `ctx.events` (see hooks.ts): the hot path dispatches through it. */
  readonly events: EventHooks
  tool(name: string): Tool | undefined
  guards(): Iterable<ToolGuard>
  toolNames(): string[]
}

const NEVER_ABORTED = new AbortController().signal
const ALLOW: PreToolDecision = Object.freeze({ kind: 'allow' })
const ACCEPT: PostToolDecision = Object.freeze({ kind: 'accept' })
const callPrefix = `call_${Math.random().toString(36).slice(2, 8)}_`
let callCounter = 0

/** Sentinel thrown inside the execute chain when the caller stops the call. */
const CANCELLED = Symbol('cancelled')

interface Outcome {
  isError: boolean
  value?: JsonValue
  content: readonly ContentBlock[]
  error?: ResultError
  presentationMeta?: JsonValue
  additionalContexts?: string[]
}

/**
 * Run `call` through the pipeline. Never rejects (S6.5); the result is deep-frozen (S6.4) and is
 * the same object `tools/result` observers receive.
 */
export async function runToolCall(host: PipelineHost, call: ToolCall, options: ExecuteOptions = {}): Promise<ToolResult> {
  const started = performance.now()
  const { ctx, events } = host
  // Options are read inside the try below: a null or hostile options object is a result, not a rejection.
  let callerSignal = NEVER_ABORTED
  let agent: string | undefined
  let parentToken: symbol | undefined
  let fromCode = false
  let callId = `${callPrefix}${++callCounter}`
  let name = ''
  let rawArgs: JsonValue = null
  let args: unknown
  let tool: Tool | undefined

  const finish = (outcome: Outcome): ToolResult => {
    let content = outcome.content
    if (tool?.finalizeContent) {
      const pending: PendingResult = Object.freeze({ isError: outcome.isError, value: outcome.value, content })
      try {
        content = normalizeContent(tool.finalizeContent({ args, result: pending }), `finalizeContent of "${name}"`)
      } catch (error) {
        // S2: finalizeContent must not throw; if it does, the content it was given stands.
        console.error(`[ptc-runner] finalizeContent of "${name}" threw; its content is kept unchanged:`, error)
      }
    }
    // S6.4: deep-frozen. Every part is already deep-frozen where it was made (materializeJson for
    // arguments, value, info and presentationMeta; normalizeContent/errorContent for content),
    // so only the new containers are frozen here instead of walking the whole tree again.
    const result: ToolResult = {
      callId,
      name,
      arguments: rawArgs,
      agent,
      isError: outcome.isError,
      content,
      durationMs: 0,
    }
    if (outcome.value !== undefined) (result as { value?: JsonValue }).value = outcome.value
    if (outcome.error) (result as { error?: ResultError }).error = Object.freeze({ ...outcome.error })
    if (outcome.presentationMeta !== undefined) (result as { presentationMeta?: JsonValue }).presentationMeta = outcome.presentationMeta
    if (outcome.additionalContexts?.length) (result as { additionalContexts?: readonly string[] }).additionalContexts = Object.freeze([...outcome.additionalContexts])
    ;(result as { durationMs: number }).durationMs = Math.round((performance.now() - started) * 1000) / 1000
    Object.freeze(result)
    notify(events, 'tools/result', result)
    return result
  }
  const fail = (error: ResultError): ToolResult => finish({ isError: true, content: errorContent(error), error })
  const cancelled = () => fail({ kind: 'cancelled', message: CANCELLED_MESSAGE })
  const denied = (message: string, info?: JsonValue) =>
    fail({ kind: 'denied', message, ...(info !== undefined && { info }) })

  try {
    const { signal: requestedSignal, agent: requestedAgent, parentToken: requestedParent } = (options ?? {}) as ExecuteOptions
    if (typeof requestedAgent === 'string') agent = requestedAgent
    if (typeof requestedParent === 'symbol') {
      parentToken = requestedParent
      fromCode = true
    }
    // S6.5: a caller signal that is not an AbortSignal could never deliver a stop; refuse the call
    // rather than run it unstoppable.
    let badSignal = false
    if (requestedSignal instanceof AbortSignal) callerSignal = requestedSignal
    else badSignal = requestedSignal !== undefined

    // S6.1: read the call once; materialize arguments once into frozen JSON.
    const { callId: requestedId, name: requestedName, arguments: input } = (call ?? {}) as Partial<ToolCall>
    if (typeof requestedId === 'string' && requestedId !== '') callId = requestedId
    name = typeof requestedName === 'string' ? requestedName : String(requestedName)
    tool = host.tool(name)
    let materializeError: unknown
    try {
      rawArgs = materializeJson(input === undefined ? {} : input)
    } catch (error) {
      materializeError = error
    }
    notify(events, 'tool/call', Object.freeze({ callId, name, arguments: rawArgs, agent, fromCode }))
    if (!tool) {
      const known = host.toolNames()
      return fail({
        kind: 'unknown-tool',
        message: `Unknown tool "${name}". Available tools: ${known.length ? known.slice(0, 50).join(', ') : '(none)'}.`,
      })
    }
    if (badSignal) {
      return fail({ kind: 'failed', message: `The call to "${name}" was refused: its caller signal is not an AbortSignal, so it could not be stopped.` })
    }
    if (materializeError !== undefined) {
      return fail({ kind: 'invalid-arguments', message: `Arguments of "${name}" are not lossless JSON: ${describeThrown(materializeError)}` })
    }
    const parsed = tool.parameters.safeParse(rawArgs)
    if (!parsed.success) {
      return fail({ kind: 'invalid-arguments', message: `Invalid arguments for "${name}": ${z.prettifyError(parsed.error)}` })
    }
    args = deepFreeze(parsed.data)

    const execution = new Execution(callId, name, args, agent, parentToken, callerSignal, tool.timeoutMs)
    if (callerSignal.aborted) return cancelled()

    // S5.1: the policy waterfall. A throwing listener or an unknown decision denies (fail-closed).
    let decision: PreToolDecision
    try {
      decision = await untilCallerStop(waterfall<PreToolDecision | Promise<PreToolDecision>>(events, 'tools/pre-execute', [execution], () => ALLOW), callerSignal)
    } catch (error) {
      if (error === CANCELLED) return cancelled()
      return denied(`A policy check failed, so the call was denied: ${describeThrown(error)}`)
    }
    const kind = (decision as { kind?: unknown } | undefined)?.kind
    if (kind === 'deny') {
      const { reason, info } = decision as Extract<PreToolDecision, { kind: 'deny' }>
      let safeInfo: JsonValue | undefined
      try {
        safeInfo = info === undefined ? undefined : materializeJson(info)
      } catch {
        safeInfo = undefined
      }
      return denied(typeof reason === 'string' && reason !== '' ? reason : 'Denied by policy.', safeInfo)
    }
    if (kind === 'cancel') return cancelled()
    if (kind !== 'allow' && kind !== 'ask') return denied('A policy listener returned an unrecognized decision, so the call was denied.')

    // S4.1: guards after every pre-execute listener; only denials, so order cannot allow.
    for (const guard of host.guards()) {
      let verdict: unknown
      try {
        verdict = guard(execution)
      } catch (error) {
        verdict = `A guard failed, so the call was denied: ${describeThrown(error)}`
      }
      if (verdict !== undefined) {
        return denied(typeof verdict === 'string' && verdict !== '' ? verdict : 'A guard returned a value that is not a reason; the call was denied.')
      }
    }

    if (kind === 'ask') {
      const { reason, displayReason } = decision as Extract<PreToolDecision, { kind: 'ask' }>
      const why = typeof reason === 'string' && reason ? ` (${reason})` : ''
      // S5.3: no agent means nobody to ask.
      if (agent === undefined) return denied(`This call needs approval${why}, but it was made without an agent, so it was denied.`)
      let outcome: Awaited<ReturnType<typeof requestApproval>>
      try {
        outcome = await untilCallerStop(
          requestApproval(ctx, {
            execution,
            ...(typeof reason === 'string' && { reason }),
            ...(typeof displayReason === 'string' && { displayReason }),
          }),
          callerSignal,
        )
      } catch {
        return cancelled() // only the caller's stop rejects here: requestApproval never throws
      }
      if (callerSignal.aborted) return cancelled()
      if (outcome !== 'allowed-once') {
        return denied(
          outcome === 'unavailable'
            ? `This call needs approval${why}, but no approval channel is available, so it was denied.`
            : `Approval was refused${why}.`,
        )
      }
    }
    if (callerSignal.aborted) return cancelled()

    // S3, S6.3: wrappers around dispatch; the caller's signal is re-fused before the body.
    let raw: unknown
    try {
      const body = async (): Promise<JsonValue> => {
        if (Execution.fuseCallerSignal(execution).aborted) throw CANCELLED
        return (await tool!.execute(args, execution)) as JsonValue
      }
      raw = await raceCallerStop(runWrappers(events, execution, body), callerSignal)
    } catch (error) {
      if (error === CANCELLED || callerSignal.aborted) return cancelled()
      if (ToolTimeoutError.isInstance(error)) return fail({ kind: 'timeout', message: error.message })
      if (ToolDeniedError.isInstance(error)) return denied(error.message)
      return fail({ kind: 'failed', message: `Tool "${name}" failed: ${describeThrown(error)}` })
    }

    // S1.2: output.schema is enforced on every returned value; S6.1 it must be lossless JSON.
    let value: JsonValue
    try {
      value = canonical(tool, raw)
    } catch (error) {
      return fail({ kind: 'invalid-output', message: `Tool "${name}" returned an invalid value: ${describeThrown(error)}` })
    }
    let content: readonly ContentBlock[]
    try {
      content = render(tool, args, value)
      if (tool.projectContent) {
        content = normalizeContent(await untilCallerStop(tool.projectContent({ args, value, content, execution }), callerSignal), `projectContent of "${name}"`)
      }
    } catch (error) {
      if (error === CANCELLED) return cancelled()
      return fail({ kind: 'failed', message: `Rendering the result of "${name}" failed: ${describeThrown(error)}` })
    }

    // S5.4: the post-execute waterfall.
    let post: PostToolDecision
    try {
      const pending: PendingResult = Object.freeze({ isError: false, value, content })
      post = await untilCallerStop(waterfall<PostToolDecision | Promise<PostToolDecision>>(events, 'tools/post-execute', [execution, pending], () => ACCEPT), callerSignal)
    } catch (error) {
      if (error === CANCELLED) return cancelled()
      return fail({ kind: 'failed', message: `A result policy failed, so the result of "${name}" was withheld: ${describeThrown(error)}` })
    }
    const additionalContexts: string[] = []
    if (post?.kind === 'block') {
      const feedback = typeof post.feedback === 'string' && post.feedback !== '' ? post.feedback : 'The result was blocked by policy.'
      return fail({ kind: 'blocked', message: feedback })
    }
    if (post?.kind !== 'accept') {
      return fail({ kind: 'failed', message: `A result policy returned an unrecognized decision, so the result of "${name}" was withheld.` })
    }
    try {
      if (post.value !== undefined) {
        value = canonical(tool, post.value)
        content = render(tool, args, value)
      }
      if (post.content !== undefined) content = normalizeContent(post.content, 'a tools/post-execute content replacement')
    } catch (error) {
      return fail({ kind: 'invalid-output', message: `A result policy replaced the result of "${name}" with an invalid one: ${describeThrown(error)}` })
    }
    // S9.5: calls from code omit additionalContexts so each call stays adjacent to its result.
    if (typeof post.additionalContext === 'string' && !fromCode) additionalContexts.push(post.additionalContext)

    let presentationMeta: JsonValue | undefined
    if (tool.output.presentationMeta) {
      try {
        presentationMeta = materializeJson(tool.output.presentationMeta(args, value))
      } catch (error) {
        console.error(`[ptc-runner] presentationMeta of "${name}" failed; it is omitted:`, error)
      }
    }
    return finish({ isError: false, value, content, presentationMeta, additionalContexts })
  } catch (error) {
    // Infrastructure failure inside the pipeline itself: still a result (S6.5).
    return fail({ kind: 'failed', message: `The tool call "${name}" failed inside the pipeline: ${describeThrown(error)}` })
  }
}

/**
 * The execution record (S6.2, S6.3): a frozen instance, so `callId`, `name`, `arguments`, `agent`,
 * `token`, `parentToken`, `callerSignal` and `timeoutMs` cannot be reassigned, deleted or
 * redefined and nothing can be added. `signal` is an accessor over a private field (private
 * fields stay writable on a frozen object): a wrapper may replace it with another AbortSignal,
 * never remove it, and the pipeline re-fuses the caller's signal before the body.
 */
class Execution implements ToolExecution {
  readonly callId: string
  readonly name: string
  readonly arguments: Readonly<unknown>
  readonly agent: string | undefined
  readonly token: symbol
  readonly parentToken: symbol | undefined
  readonly callerSignal: AbortSignal
  readonly timeoutMs: number | undefined
  #signal: AbortSignal

  constructor(callId: string, name: string, args: unknown, agent: string | undefined, parentToken: symbol | undefined, callerSignal: AbortSignal, timeoutMs: number | undefined) {
    this.callId = callId
    this.name = name
    this.arguments = args as Readonly<unknown>
    this.agent = agent
    this.token = Symbol(`tool-call:${name}`)
    this.parentToken = parentToken
    this.callerSignal = callerSignal
    this.timeoutMs = timeoutMs
    this.#signal = callerSignal
    Object.freeze(this)
  }

  get signal(): AbortSignal {
    return this.#signal
  }

  set signal(next: AbortSignal) {
    // S3: a wrapper may replace the signal, never remove it.
    if (!(next instanceof AbortSignal)) throw new TypeError('exec.signal can be replaced by another AbortSignal, never removed')
    this.#signal = next
  }

  /** S6.3: fuse the caller's signal into whatever a wrapper installed; returns the body's signal. */
  static fuseCallerSignal(execution: Execution): AbortSignal {
    const { callerSignal } = execution
    if (execution.#signal !== callerSignal && callerSignal !== NEVER_ABORTED) execution.#signal = AbortSignal.any([execution.#signal, callerSignal])
    return execution.#signal
  }
}
// A listener must not be able to swap the accessor for every execution.
Object.freeze(Execution.prototype)

type ExecuteWrapper = (execution: ToolExecution, next: () => Promise<JsonValue>) => Promise<JsonValue> | JsonValue

/**
 * The `tools/execute` chain (S3). Unlike cordis' `waterfall`, `next()` may be called more than
 * once, so a wrapper can retry: each call runs the rest of the chain and the body again (with the
 * caller's signal re-fused each time, S6.3). A synchronous throw anywhere becomes a rejection.
 */
function runWrappers(events: EventHooks, execution: ToolExecution, body: () => Promise<JsonValue>): Promise<JsonValue> {
  const wrappers = listenersOf(events, 'tools/execute', 'waterfall', [execution]) as readonly ExecuteWrapper[]
  if (wrappers.length === 0) return body()
  const step = async (index: number): Promise<JsonValue> =>
    index === wrappers.length ? body() : wrappers[index]!(execution, () => step(index + 1))
  return step(0)
}

function canonical(tool: Tool, raw: unknown): JsonValue {
  const checked = tool.output.schema.safeParse(raw)
  if (!checked.success) throw new Error(z.prettifyError(checked.error))
  return materializeJson(checked.data)
}

function render(tool: Tool, args: unknown, value: JsonValue): readonly ContentBlock[] {
  return normalizeContent(tool.output.render(args, value), `output.render of "${tool.name}"`)
}

/**
 * S6.3: the caller's stop ends every wait of the pipeline (policy, approval, projectContent,
 * post-execute), not only the body's: a listener or an approval prompt that never answers cannot
 * keep a stopped call alive. Rejects with {@link CANCELLED} on the stop. Without a caller signal
 * the value is returned as is (no promise allocated for synchronous answers).
 */
function untilCallerStop<T>(work: T | Promise<T>, callerSignal: AbortSignal): T | Promise<T> {
  if (callerSignal === NEVER_ABORTED) return work
  return raceCallerStop(Promise.resolve(work), callerSignal)
}

/** The caller's stop ends the wait even if a body or wrapper ignores its signal (S6.3). */
function raceCallerStop<T>(work: Promise<T>, callerSignal: AbortSignal): Promise<T> {
  if (callerSignal === NEVER_ABORTED) return work
  if (callerSignal.aborted) return Promise.reject(CANCELLED)
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(CANCELLED)
    callerSignal.addEventListener('abort', onAbort, { once: true })
    work.then(
      (value) => {
        callerSignal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error) => {
        callerSignal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}
