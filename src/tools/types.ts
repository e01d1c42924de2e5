/**
 * Contracts of the tool model and the execution pipeline (SPEC S1–S7), in one types-only module
 * that tools, policy plugins, the PTC bridge and the server all import.
 */
import type { z } from 'zod'
import type { Card } from './cards.ts'

/** A value JSON can carry losslessly: what arguments and canonical values are made of (S6.1). */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue }

/** One block of model-facing content: the product of `output.render` (S1.2). */
export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'image'; data: string; mimeType: string }

/** One field of the compact parameter form from the seed: optional unless `required: true` (S1.1). */
export type CompactField =
  | { type: 'string'; required?: boolean; description?: string; enum?: readonly string[] }
  | { type: 'number' | 'integer'; required?: boolean; description?: string }
  | { type: 'boolean'; required?: boolean; description?: string }
  | { type: 'array'; items?: CompactField; required?: boolean; description?: string }
  | { type: 'object'; required?: boolean; description?: string }

/** The compact parameter form: `{path: {type: 'string', required: true}, limit: {type: 'number'}}`. */
export type CompactParameters = Record<string, CompactField>

/**
 * One tool call as the model (or a script) asked for it. `arguments` is whatever arrived: the
 * pipeline materializes it once into frozen JSON before anything reads it (S6.1).
 */
export interface ToolCall {
  /** Stable id of this call; generated when omitted. */
  callId?: string
  name: string
  arguments: unknown
}

/**
 * The execution record of one call, as policy listeners, guards, wrappers and the body see it.
 * `callId`, `name`, `arguments`, `agent`, `token` and `callerSignal` are read-only for the whole
 * execution (S6.3); `arguments` is deep-frozen JSON (S6.1); `token` is a unique Symbol (S6.2).
 * `signal` may be replaced by a `tools/execute` wrapper but never removed: the registry fuses the
 * caller's signal back in before the body runs (S6.3).
 */
export interface ToolExecution<Args = unknown> {
  readonly callId: string
  readonly name: string
  readonly arguments: Readonly<Args>
  /** The agent (session) that made the call; `undefined` means no agent, so `ask` denies (S5.3). */
  readonly agent: string | undefined
  readonly token: symbol
  /** The token of the `run_code` call this call was made from, for calls from code (S9.5). */
  readonly parentToken: symbol | undefined
  /** The caller's own cancellation signal; immutable (S6.3). */
  readonly callerSignal: AbortSignal
  /** The signal the body honours (S1.3). Wrappers may replace it with a derived one. */
  signal: AbortSignal
  /** Timeout budget in ms the tool declared (S2 `timeoutMs`), for the timeout policy plugin. */
  readonly timeoutMs: number | undefined
}

/** What a `tools/pre-execute` listener decides (S5.1). Arguments can never be rewritten (S5.2). */
export type PreToolDecision =
  | { kind: 'allow' }
  | { kind: 'deny'; reason: string; info?: JsonValue }
  | { kind: 'cancel' }
  | { kind: 'ask'; reason?: string; displayReason?: string }

/** What a `tools/post-execute` listener decides (S5.4). */
export type PostToolDecision =
  | { kind: 'accept'; content?: ContentBlock[]; value?: JsonValue; additionalContext?: string }
  | { kind: 'block'; feedback: string }

/** A monotonic guard (S4.1): a string denies with that reason, `undefined` changes nothing. */
export type ToolGuard = (execution: Readonly<ToolExecution>) => string | undefined

/** How a call may be scheduled against its siblings (S7.1). */
export type ToolExecutionMode = { kind: 'parallel' } | { kind: 'exclusive' }

/** Why a result is an error; a stable, machine-readable category (never shown to scripts, S9.3). */
export type ToolErrorKind =
  | 'unknown-tool'
  | 'invalid-arguments'
  | 'denied'
  | 'cancelled'
  | 'timeout'
  | 'failed'
  | 'invalid-output'
  | 'blocked'

/**
 * The final, deep-frozen result of one call (S6.4): what `tools/result` observers, the journal,
 * the model and the PTC bridge all see. `value` is the canonical value (absent on error);
 * `content` is what the model reads.
 */
export interface ToolResult {
  readonly callId: string
  readonly name: string
  readonly arguments: JsonValue
  readonly agent: string | undefined
  readonly isError: boolean
  readonly value?: JsonValue
  readonly content: readonly ContentBlock[]
  readonly error?: { readonly kind: ToolErrorKind; readonly message: string; readonly info?: JsonValue }
  /** Replayable display data from `output.presentationMeta` (S1.2). */
  readonly presentationMeta?: JsonValue
  /** Model-visible context added by post-execute listeners; omitted for calls from code (S9.5). */
  readonly additionalContexts?: readonly string[]
  /** Wall-clock time of the whole pipeline, in ms. */
  readonly durationMs: number
}

/** What `projectContent` and `tools/post-execute` see of a result before it is final. */
export interface PendingResult {
  readonly isError: boolean
  readonly value?: JsonValue
  readonly content: readonly ContentBlock[]
}

/** The canonical output declaration (S1.2, S2). */
export interface ToolOutput<Args, Value> {
  /** The shape of the canonical value; enforced on every returned value. */
  schema: z.ZodType<Value>
  /** Pure projection of the canonical value into model content blocks. */
  render: (args: Args, value: Value) => ContentBlock[]
  /** Replayable display data, stored on the result (must be JSON). */
  presentationMeta?: (args: Args, value: Value) => JsonValue
}

/**
 * The four MCP behaviour hints of a tool (MCP `ToolAnnotations`), for clients deciding what to
 * confirm or show. They are hints, never enforcement (policy is S3's job). Unset means the MCP
 * defaults: not read-only, destructive, not idempotent, open-world.
 */
export interface ToolAnnotations {
  /** The tool does not change its environment. */
  readOnlyHint?: boolean
  /** When not read-only: it may destroy or overwrite data (not only add). */
  destructiveHint?: boolean
  /** When not read-only: calling it again with the same arguments has no further effect. */
  idempotentHint?: boolean
  /** It reaches beyond a closed world (the network, any process or file outside the workspace). */
  openWorldHint?: boolean
}

/**
 * A tool as its author writes it (S1, S2). `parameters` is a zod object or the compact form; the
 * `args` of `execute` are inferred from it. Every optional field of the S2 table is here.
 */
export interface ToolDefinition<Args = any, Value = any> {
  name: string
  /** A short human-readable name for UIs (MCP `title`); `name` stays the id. */
  title?: string
  description: string
  parameters: z.ZodType<Args> | CompactParameters
  deferLoading?: boolean
  /** Behaviour hints for MCP clients (exposed by `ptc serve`); see {@link ToolAnnotations}. */
  annotations?: ToolAnnotations
  output: ToolOutput<Args, Value>
  execute: (args: Args, exec: ToolExecution<Args>) => Value | Promise<Value>
  /** Loads execution-prepared content before post-execute policy (S2). */
  projectContent?: (input: {
    args: Args
    value: Value
    content: readonly ContentBlock[]
    execution: Readonly<ToolExecution<Args>>
  }) =>
    | ContentBlock[]
    | Promise<ContentBlock[]>
  /** Synchronous last-mile transform of content; called exactly once per result, must not throw (S2). */
  finalizeContent?: (input: { args: Args | undefined; result: PendingResult }) => ContentBlock[]
  /** The tool's own budget in ms, enforced by the timeout policy plugin (S2). */
  timeoutMs?: number
  /** Pure synchronous classifier: only a strict `true` means parallel (S2.2). */
  isConcurrencySafe?: (args: Args) => boolean
  /** The "calling" card (S11.1). */
  presentCall?: (args: Args) => Card | undefined
  /** The "done" card (S11.1). */
  presentResult?: (args: Args, result: ToolResult) => Card | undefined
}

/** The model-facing schema of one tool, built by allow-list (S2.1). */
export interface ToolSchema {
  name: string
  description: string
  parameters: Record<string, unknown>
  deferLoading?: boolean
}

/** Options of one `ctx.tools.execute()` call. */
export interface ExecuteOptions {
  /** The agent (session) making the call; without one, `ask` denies (S5.3). */
  agent?: string
  /** The caller's cancellation signal (S1.3, S6.3). */
  signal?: AbortSignal
  /** Set by the PTC bridge for calls from code (S9.5). */
  parentToken?: symbol
}

/** What an approval request asks (S8). */
export interface ApprovalRequest {
  readonly execution: Readonly<ToolExecution>
  readonly reason?: string
  readonly displayReason?: string
}

/** The answer to an approval request: only `allowed-once` lets the call run (S5.1, S8.1). */
export type ApprovalOutcome = 'allowed-once' | 'denied' | 'unavailable'

/** Payload of `tool/ptc-dispatch` (S9.4, S9.5): only the pairing id, the name and the arguments. */
export interface PtcDispatch {
  readonly pairingId: string
  readonly name: string
  readonly arguments: JsonValue
  readonly parentToken: symbol
}

/** Payload of `tool/call`: what was called, once arguments are materialized. */
export interface ToolCallRecord {
  readonly callId: string
  readonly name: string
  readonly arguments: JsonValue
  readonly agent: string | undefined
  readonly fromCode: boolean
}

declare module 'cordis' {
  interface Events {
    /** Policy waterfall before guards (S3, S5.1). */
    'tools/pre-execute'(
      execution: Readonly<ToolExecution>,
      next: () => PreToolDecision | Promise<PreToolDecision>,
    ): PreToolDecision | Promise<PreToolDecision>
    /** Around-dispatch wrappers (S3); `next()` runs the rest of the chain and the body. */
    'tools/execute'(execution: ToolExecution, next: () => Promise<JsonValue>): Promise<JsonValue>
    /** Post-execute policy waterfall (S3, S5.4). */
    'tools/post-execute'(
      execution: Readonly<ToolExecution>,
      result: PendingResult,
      next: () => PostToolDecision | Promise<PostToolDecision>,
    ): PostToolDecision | Promise<PostToolDecision>
    /** Observe the frozen final result (S3, S6.4); listener failures are isolated. */
    'tools/result'(result: ToolResult): void
    /** A call entered the pipeline with materialized arguments (journal, UI). */
    'tool/call'(call: ToolCallRecord): void
    /** A call from code is about to enter the pipeline (S9.5). */
    'tool/ptc-dispatch'(dispatch: PtcDispatch): void
    /** One-shot approval (S8.1); the innermost answer is `unavailable` (S8.2). */
    'approval/request'(
      request: ApprovalRequest,
      next: () => ApprovalOutcome | Promise<ApprovalOutcome>,
    ): ApprovalOutcome | Promise<ApprovalOutcome>
  }
}
