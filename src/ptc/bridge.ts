/**
 * The PTC bridge (SPEC S9.1–S9.5): the host side of `await tools.name(args)` from a script. Each
 * call from the isolate arrives as a pairing id, a tool name and a JSON string. Before any policy
 * the bridge records only those three things (S9.4) in the `tool/ptc-dispatch` event, with the
 * parent's token (S9.5), then admits the call through the run's {@link ExecutionGate} by the
 * tool's execution mode (S7, so parallel calls from code follow the agent loop's rules) and runs
 * the full registry pipeline. A success answers the final canonical value (S9.2); any failure,
 * policy denials included, answers a readable message that the runtime turns into a binding
 * `ToolCallError` rejection (S9.3).
 */
import { eventHooks } from '../pipeline/cordis-adapter.ts'
import { notify } from '../pipeline/notify.ts'
import type { ExecutionGate } from '../scheduler/execution-gate.ts'
import type { Context } from 'cordis'
import type { ToolRegistry } from '../pipeline/tool-registry.ts'
import type { JsonValue, PtcDispatch } from '../tools/types.ts'
import { capText } from '../cap-text.ts'

/**
 * Longest failure message a call from code receives, in characters (UTF-16 units). A tool's
 * error can be any size (one that throws a 10 MB message), and it crosses into the isolate as the
 * `ToolCallError`'s `message`: the rest is cut, with a note saying how long it was.
 */
export const MAX_CALL_ERROR_CHARS = 10_000

/** `message` cut to {@link MAX_CALL_ERROR_CHARS} (`capText`: never between the halves of a surrogate pair), saying so. */
function clipMessage(message: string): string {
  const { text, cut } = capText(message, MAX_CALL_ERROR_CHARS)
  return cut === 0 ? message : `${text}… (cut: the message had ${message.length} characters)`
}

/** One call from code, as the isolate runner hands it over. */
export interface BridgeCall {
  pairingId: string
  name: string
  argsJson: string
  /** Aborted when the run ends for any reason (finish, timeout, memory, cancel). */
  signal: AbortSignal
}

/** The bridge's answer; a failure becomes a `ToolCallError` with `message` inside the script. */
export type BridgeAnswer = { ok: true; valueJson: string } | { ok: false; message: string }

/** What one run's bridge needs. */
export interface BridgeOptions {
  /** The context whose `tool/ptc-dispatch` listeners are notified. */
  ctx: Context
  tools: ToolRegistry
  /** Names callable from this run; anything else is refused before the pipeline. */
  visible: ReadonlySet<string>
  /** The `run_code` call's token (S9.5). */
  parentToken: symbol
  /** The `run_code` call's id; child call ids are `${parentCallId}/${pairingId}`. */
  parentCallId: string
  agent: string | undefined
  gate: ExecutionGate
  /** Filled with the calls started (past the gate) and not yet answered, name by pairing id: what a cancel stops (`ApprovalWaits.during`). */
  running?: Map<string, string>
}

/**
 * Make the dispatch function for one run. The returned function never rejects.
 */
export function createBridge(options: BridgeOptions): (call: BridgeCall) => Promise<BridgeAnswer> {
  const { tools, visible, parentToken, parentCallId, agent, gate, running } = options
  // Resolved once: `ctx.events` is a context-proxy lookup, and this runs for every call.
  const events = eventHooks(options.ctx)
  return async ({ pairingId, name, argsJson, signal }) => {
    if (!visible.has(name)) return { ok: false, message: `Tool "${name}" is not available to this script.` }
    let args: JsonValue
    try {
      // Host-side JSON.parse: a "__proto__" key becomes an own data property, never a prototype.
      args = JSON.parse(argsJson) as JsonValue
    } catch {
      return { ok: false, message: `The arguments of "${name}" are not valid JSON.` }
    }
    const dispatch: PtcDispatch = Object.freeze({ pairingId, name, arguments: args, parentToken })
    notify(events, 'tool/ptc-dispatch', dispatch)
    if (signal.aborted) return { ok: false, message: `The run ended before "${name}" could start.` }
    const call = { callId: `${parentCallId}/${pairingId}`, name, arguments: args }
    // classifyOnce: `execute` of this same call object runs with the arguments classified here (read once).
    const result = await gate.run(tools.classifyOnce(call), () => (running?.set(pairingId, name), tools.execute(call, { agent, signal, parentToken })))
    running?.delete(pairingId)
    if (result.isError) return { ok: false, message: clipMessage(result.error?.message ?? `Tool "${name}" failed.`) }
    return { ok: true, valueJson: result.value === undefined ? 'null' : JSON.stringify(result.value) }
  }
}
