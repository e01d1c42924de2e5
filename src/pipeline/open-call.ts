/**
 * The first stage of a call (SPEC S6.1, S6.2, S6.5): read the call and its options once,
 * materialize the arguments into frozen lossless JSON, announce `tool/call`, validate against the
 * tool's parameters, and make the frozen execution. Nothing policy sees can change after this.
 */
import { argumentProblems } from './argument-problems.ts'
import { describeThrown } from '../errors/describe-thrown.ts'
import type { Tool } from '../tools/define-tool.ts'
import type { ExecuteOptions, JsonValue, ToolCall } from '../tools/types.ts'
import { Execution, NEVER_ABORTED } from './execution.ts'
import type { CallRecord } from './finish.ts'
import type { EventHooks } from './cordis-adapter.ts'
import { deepFreeze, materializeArguments } from './materialize.ts'
import { notify } from './notify.ts'
import type { ResultError } from './results.ts'
import type { PipelineHost } from './run-tool-call.ts'

/**
 * A call's arguments as the registry's `classifyOnce` already read them: materialized (S6.1),
 * then validated by `tool` and deep-frozen (`args`). Used by {@link openCall} instead of reading
 * them again, only while the registered tool is still `tool`.
 */
export interface ClassifiedCall {
  readonly tool: Tool
  readonly arguments: JsonValue
  readonly args: unknown
}

const callPrefix = `call_${Math.random().toString(36).slice(2, 8)}_`
let callCounter = 0

/** A fresh record for a call about to be read; `callId` is generated unless the call names one. */
export function newCallRecord(): CallRecord {
  return { callId: `${callPrefix}${++callCounter}`, name: '', arguments: null, agent: undefined, fromCode: false, tool: undefined, args: undefined, started: performance.now() }
}

/**
 * Fill `record` from `call` and `options` (both read once, as untrusted input) and make the
 * execution. Returns the failure instead when the tool is unknown, the caller signal is not an
 * AbortSignal (it could never deliver a stop), or the arguments are not lossless JSON or invalid.
 * @throws only on an infrastructure failure (a hostile `call` or `options`): the caller makes it a result.
 */
export function openCall(host: PipelineHost, record: CallRecord, call: ToolCall, options: ExecuteOptions): Execution | ResultError {
  const { signal: requestedSignal, agent: requestedAgent, parentToken: requestedParent } = (options ?? {}) as ExecuteOptions
  if (typeof requestedAgent === 'string') record.agent = requestedAgent
  let parentToken: symbol | undefined
  if (typeof requestedParent === 'symbol') {
    parentToken = requestedParent
    record.fromCode = true
  }
  let callerSignal = NEVER_ABORTED
  let badSignal = false
  if (requestedSignal instanceof AbortSignal) callerSignal = requestedSignal
  else badSignal = requestedSignal !== undefined
  // The host's stop ends every open call (S6.3). A call from code keeps its run's signal alone (no
  // AbortSignal.any on the hot path): the run itself is cancelled when the host stops.
  const hostStop = host.stopSignal
  const stopSignal = hostStop === undefined ? callerSignal : callerSignal === NEVER_ABORTED ? hostStop : parentToken !== undefined ? callerSignal : AbortSignal.any([callerSignal, hostStop])

  // S6.1: read the call once; materialize arguments once into frozen JSON.
  const { callId: requestedId, name: requestedName, arguments: input } = (call ?? {}) as Partial<ToolCall>
  if (typeof requestedId === 'string' && requestedId !== '') record.callId = requestedId
  const name = (record.name = typeof requestedName === 'string' ? requestedName : String(requestedName))
  const tool = (record.tool = host.tool(name))
  const classified = host.takeClassified?.(call)
  const reuse = classified !== undefined && classified.tool === tool
  let materializeError: unknown
  try {
    record.arguments = reuse ? classified.arguments : materializeArguments(input === undefined ? {} : input)
  } catch (error) {
    materializeError = error
  }
  announce(host.events, record)
  if (host.closing === true && parentToken === undefined && host.stopped !== true) {
    return { kind: 'failed', message: `The host is being disposed (host.dispose()): "${name}" was not called. Make a new host with createHost() for more calls.` }
  }
  if (!tool) {
    if (host.stopped === true) return { kind: 'unknown-tool', message: `The tool registry has stopped (its host was disposed): "${name}" was not called. Make a new host.` }
    const known = host.toolNames()
    return { kind: 'unknown-tool', message: `Unknown tool "${name}". Available tools: ${known.length ? known.slice(0, 50).join(', ') : '(none)'}.` }
  }
  if (badSignal) {
    return { kind: 'failed', message: `The call to "${name}" was refused: its caller signal is not an AbortSignal, so it could not be stopped.` }
  }
  if (materializeError !== undefined) {
    return { kind: 'invalid-arguments', message: `Arguments of "${name}" are not lossless JSON: ${describeThrown(materializeError)}` }
  }
  if (reuse) {
    record.args = classified.args
  } else {
    const parsed = tool.parameters.safeParse(record.arguments)
    if (!parsed.success) return { kind: 'invalid-arguments', message: `Invalid arguments for "${name}": ${argumentProblems(parsed.error)}` }
    record.args = deepFreeze(parsed.data)
  }
  return new Execution({ callId: record.callId, name, args: record.args, agent: record.agent, parentToken, callerSignal, stopSignal, timeoutMs: tool.timeoutMs })
}

/** `tool/call`: the call as received, before any policy (S9.4 records the same normalized arguments). */
function announce(events: EventHooks, record: CallRecord): void {
  const { callId, name, arguments: args, agent, fromCode } = record
  notify(events, 'tool/call', Object.freeze({ callId, name, arguments: args as JsonValue, agent, fromCode }))
}
