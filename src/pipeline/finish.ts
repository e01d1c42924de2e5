/**
 * The last stage of every call, success or failure (SPEC S2 `finalizeContent`, S6.4, S3
 * `tools/result`): `finalizeContent` exactly once, the deep-frozen `ToolResult`, then the
 * `tools/result` observers with their failures isolated.
 */
import type { Tool } from '../tools/define-tool.ts'
import type { ContentBlock, JsonValue, PendingResult, ToolResult } from '../tools/types.ts'
import type { EventHooks } from './cordis-adapter.ts'
import { notify } from './notify.ts'
import { CANCELLED_BEFORE_START_MESSAGE, CANCELLED_MESSAGE, errorContent, normalizeContent, type ResultError } from './results.ts'

/**
 * What the pipeline knows of a call so far; filled in stage by stage by open-call.ts, so a failure
 * at any point still becomes a result naming the call. `started` is a `performance.now()` (ms).
 */
export interface CallRecord {
  callId: string
  name: string
  /** The materialized arguments as received (S6.1); `null` until (or unless) they materialize. */
  arguments: JsonValue
  agent: string | undefined
  /** Made from code (a `run_code` child call, S9.5): it carries a parent token. */
  fromCode: boolean
  tool: Tool | undefined
  /** The validated, deep-frozen arguments the tool receives. */
  args: unknown
  readonly started: number
}

/** How a call ended, before `finalizeContent` and freezing. */
export interface Outcome {
  isError: boolean
  value?: JsonValue
  content: readonly ContentBlock[]
  error?: ResultError
  presentationMeta?: JsonValue
  additionalContexts?: string[]
}

/** The outcome of a failure (S6.5): `isError`, with the error as model-facing content. */
export function failure(error: ResultError): Outcome {
  return { isError: true, content: errorContent(error), error }
}

/** A policy denial (S5.1), with its structured identity when there is one. */
export function denial(message: string, info?: JsonValue): Outcome {
  return failure({ kind: 'denied', message, ...(info !== undefined && { info }) })
}

/**
 * The canonical cancellation (S5.1): not presented as a policy denial. `started`: whether the
 * tool had begun (what it did stands) or the call was cancelled before it did (nothing was done);
 * `note`: the body's own account of what it had in flight then (`Execution.noteCancel`), added after.
 */
export function cancellation(started = true, note?: string): Outcome {
  const message = started ? CANCELLED_MESSAGE : CANCELLED_BEFORE_START_MESSAGE
  return failure({ kind: 'cancelled', message: note === undefined ? message : `${message} ${note}` })
}

/**
 * Make the final result of `call`: `finalizeContent` (once; a throw keeps the content it was
 * given, S2), the deep-frozen snapshot (S6.4), then `tools/result` observers. Never throws.
 */
export function finish(events: EventHooks, call: CallRecord, outcome: Outcome): ToolResult {
  const { tool, name } = call
  let content = outcome.content
  if (tool?.finalizeContent) {
    const pending: PendingResult = Object.freeze({ isError: outcome.isError, value: outcome.value, content })
    try {
      content = normalizeContent(tool.finalizeContent({ args: call.args, result: pending }), `finalizeContent of "${name}"`)
    } catch (error) {
      // S2: finalizeContent must not throw; if it does, the content it was given stands.
      console.error(`[ptc-runner] finalizeContent of "${name}" threw; its content is kept unchanged:`, error)
    }
  }
  // S6.4: deep-frozen. Every part is already deep-frozen where it was made (materializeJson for
  // arguments, value, info and presentationMeta; normalizeContent/errorContent for content),
  // so only the new containers are frozen here instead of walking the whole tree again.
  const result: ToolResult = {
    callId: call.callId,
    name,
    arguments: call.arguments,
    agent: call.agent,
    isError: outcome.isError,
    content,
    durationMs: 0,
  }
  if (outcome.value !== undefined) (result as { value?: JsonValue }).value = outcome.value
  if (outcome.error) (result as { error?: ResultError }).error = Object.freeze({ ...outcome.error })
  if (outcome.presentationMeta !== undefined) (result as { presentationMeta?: JsonValue }).presentationMeta = outcome.presentationMeta
  if (outcome.additionalContexts?.length) (result as { additionalContexts?: readonly string[] }).additionalContexts = Object.freeze([...outcome.additionalContexts])
  ;(result as { durationMs: number }).durationMs = Math.round((performance.now() - call.started) * 1000) / 1000
  Object.freeze(result)
  notify(events, 'tools/result', result)
  return result
}
