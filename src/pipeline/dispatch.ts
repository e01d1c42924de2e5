/**
 * Dispatch (SPEC S3 `tools/execute`, S6.3): the around-dispatch wrappers (the timeout policy,
 * retries, metrics), then the tool's body with the caller's signal re-fused, each time a wrapper
 * calls `next()`. The caller's stop ends the wait even when the body ignores its signal.
 */
import { describeThrown } from '../errors/describe-thrown.ts'
import { ToolDeniedError, ToolTimeoutError } from '../errors/ptc-error.ts'
import type { Tool } from '../tools/define-tool.ts'
import type { JsonValue, ToolExecution } from '../tools/types.ts'
import { CANCELLED, Execution, raceCallerStop } from './execution.ts'
import { type EventHooks, listenersOf } from './cordis-adapter.ts'
import type { ResultError } from './results.ts'

/** What the body returned (not yet checked against `output.schema`), or how dispatch failed. */
export type Dispatched = { readonly kind: 'returned'; readonly raw: unknown } | { readonly kind: 'cancelled'; readonly started: boolean } | { readonly kind: 'failed'; readonly error: ResultError }

type ExecuteWrapper = (execution: ToolExecution, next: () => Promise<JsonValue>) => Promise<JsonValue> | JsonValue

/**
 * Run `tool` for `execution` through the `tools/execute` wrappers. A `ToolTimeoutError` becomes a
 * `timeout`, a `ToolDeniedError` (a boundary the tool enforces at the moment of use) a `denied`,
 * anything else thrown a `failed` result; the caller's stop a cancellation. Never throws.
 */
export async function dispatch(events: EventHooks, tool: Tool, execution: Execution): Promise<Dispatched> {
  const stop = Execution.stopOf(execution)
  // Whether the tool's body was entered: a cancel before (a wrapper still holding the call) did nothing.
  let started = false
  const body = async (): Promise<JsonValue> => {
    if (Execution.fuseCallerSignal(execution).aborted) throw CANCELLED
    started = true
    return (await tool.execute(execution.arguments, execution)) as JsonValue
  }
  try {
    return { kind: 'returned', raw: await raceCallerStop(runWrappers(events, execution, body), stop) }
  } catch (error) {
    if (error === CANCELLED || stop.aborted) return { kind: 'cancelled', started }
    if (ToolTimeoutError.isInstance(error)) return { kind: 'failed', error: { kind: 'timeout', message: error.message } }
    if (ToolDeniedError.isInstance(error)) return { kind: 'failed', error: { kind: 'denied', message: error.message } }
    return { kind: 'failed', error: { kind: 'failed', message: `Tool "${execution.name}" failed: ${describeThrown(error)}` } }
  }
}

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
