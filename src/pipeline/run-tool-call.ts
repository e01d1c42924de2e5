/**
 * The run of one tool call through the whole pipeline (SPEC S3–S6), one stage a file:
 *
 * | stage | file | SPEC |
 * |---|---|---|
 * | read the call, materialize + freeze arguments, validate, make the execution | open-call.ts, execution.ts | S6.1–S6.3 |
 * | `tools/pre-execute` waterfall → guards → `ask` → approval | pre-execute.ts, guards.ts, request-approval.ts | S4, S5.1–S5.3 |
 * | `tools/execute` wrappers → body (caller's signal re-fused) | dispatch.ts | S3, S6.3 |
 * | output validation → render → `projectContent` → `tools/post-execute` | post-execute.ts | S1.2, S5.4, S9.5 |
 * | `finalizeContent` (once, failures included) → frozen result → `tools/result` | finish.ts | S2, S6.4 |
 *
 * Every failure becomes an `isError` result; nothing escapes as an exception (S6.5).
 */
import type { Context } from 'cordis'
import { describeThrown } from '../errors/describe-thrown.ts'
import type { Tool } from '../tools/define-tool.ts'
import type { ExecuteOptions, ToolCall, ToolGuard, ToolResult } from '../tools/types.ts'
import { dispatch } from './dispatch.ts'
import { Execution } from './execution.ts'
import { cancellation, denial, failure, finish } from './finish.ts'
import type { EventHooks } from './cordis-adapter.ts'
import { type ClassifiedCall, newCallRecord, openCall } from './open-call.ts'
import { postExecute } from './post-execute.ts'
import { preExecute } from './pre-execute.ts'

/** What the pipeline needs from the registry. */
export interface PipelineHost {
  readonly ctx: Context
  /** The raw hook table of `ctx.events` (see hooks.ts): the hot path dispatches through it. */
  readonly events: EventHooks
  tool(name: string): Tool | undefined
  guards(): Iterable<ToolGuard>
  toolNames(): string[]
  /** The registry has stopped (its host was disposed): no tool is left to call. */
  readonly stopped?: boolean
  /** Its host's dispose has begun: a call made by no script is refused. */
  readonly closing?: boolean
  /** Aborted a moment after the registry stops: every call still open then ends `cancelled`, whatever its caller's signal. */
  readonly stopSignal?: AbortSignal
  /** How many calls are in the pipeline now (the registry keeps the process alive for them when it stops). */
  readonly calls?: { open: number }
  /** The arguments the registry's `classifyOnce` read of this call object, once (see open-call.ts). */
  takeClassified?(call: object): ClassifiedCall | undefined
}

/**
 * Run `call` through the pipeline. Never rejects (S6.5); the result is deep-frozen (S6.4) and is
 * the same object `tools/result` observers receive.
 */
export async function runToolCall(host: PipelineHost, call: ToolCall, options: ExecuteOptions = {}): Promise<ToolResult> {
  const { events, calls } = host
  const record = newCallRecord()
  if (calls !== undefined) calls.open++
  try {
    const execution = openCall(host, record, call, options)
    if (!(execution instanceof Execution)) return finish(events, record, failure(execution))
    if (Execution.stopOf(execution).aborted) return finish(events, record, cancellation(false))

    // Awaited only when a listener answered asynchronously (an `await` costs a microtask turn).
    const decided = preExecute(host, execution)
    const verdict = decided instanceof Promise ? await decided : decided
    if (verdict.kind === 'deny') return finish(events, record, denial(verdict.message, verdict.info))
    if (verdict.kind === 'cancel') return finish(events, record, cancellation(false))

    const dispatched = await dispatch(events, record.tool!, execution)
    if (dispatched.kind === 'cancelled') return finish(events, record, cancellation(dispatched.started, Execution.cancelNoteOf(execution)))
    if (dispatched.kind === 'failed') return finish(events, record, failure(dispatched.error))

    return finish(events, record, await postExecute(events, record.tool!, execution, dispatched.raw, record.fromCode))
  } catch (error) {
    // Infrastructure failure inside the pipeline itself: still a result (S6.5).
    return finish(events, record, failure({ kind: 'failed', message: `The tool call "${record.name}" failed inside the pipeline: ${describeThrown(error)}` }))
  } finally {
    if (calls !== undefined) calls.open--
  }
}
