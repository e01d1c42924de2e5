/**
 * The one base class for the project's infrastructure errors (STYLE: errors). Each has a stable
 * `code` and structured `details`; `name` follows the subclass; `isInstance` works across realms
 * and module copies because it checks a `Symbol.for` marker, not the prototype chain.
 * Inside the pipeline these become `isError` results (S6.5); they only escape from APIs whose
 * docstring says so.
 */
const marker = Symbol.for('ptc-runner.error')

/**
 * Every `code` an error the product throws on purpose can carry: a closed union, so a `switch`
 * over it is exhaustive and a typo is a type error. Grouped by the part that throws it.
 */
export type PtcErrorCode =
  // pipeline and tools (S1.4, S6.1, S5.1, S8)
  | 'not-json'
  | 'timeout'
  | 'tool-definition'
  | 'denied'
  | 'approval-not-obtained'
  // workspace (S8): safe opens and workspace tool refusals
  | 'path-outside-area'
  | 'path-protected'
  | 'path-swapped'
  | 'path-not-regular'
  | 'invalid-request'
  // sandbox (S8)
  | 'sandbox-unavailable'
  | 'sandbox-policy-invalid'
  | 'sandbox-request-invalid'
  // ptc (S9): a script that cannot compile
  | 'compile_error'
  // jobs (S10)
  | 'job-not-found'
  | 'job-start-refused'
  // host, journal, cli, server, mcp
  | 'tool-module'
  | 'host-options'
  | 'journal-unwritable'
  | 'usage'
  | 'serve'
  | 'run-refused'
  | 'mcp-connection'
  | 'mcp-config'
  // view (ptc view, S11.6)
  | 'view-exposure'
  | 'view-not-found'
  | 'view-bad-request'
  | 'view-refused'
  | 'view-client-build'
  // adapters (ptc-runner/ai, ptc-runner/openai-agents): an optional peer package is not installed
  | 'peer-missing'

export class PtcError extends Error {
  readonly code: PtcErrorCode
  readonly details: Record<string, unknown> | undefined
  readonly [marker] = true

  constructor(code: PtcErrorCode, message: string, options?: { details?: Record<string, unknown>; cause?: unknown }) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause })
    this.name = new.target.name
    this.code = code
    this.details = options?.details
  }

  /** True for any PtcError (or subclass) instance, even from another copy of this module. */
  static isInstance(value: unknown): value is PtcError {
    return hasMarker(value)
  }

  /**
   * True when `value` is a PtcError with this exact `code`, even from another copy of this module.
   * Never throws, even for a hostile or revoked Proxy.
   */
  static hasCode(value: unknown, code: PtcErrorCode): value is PtcError {
    try {
      // Not `PtcError.isInstance`: a class that names itself in its body is renamed by the
      // package's bundler (scripts/bundle-package.ts), and its errors' name would change.
      return hasMarker(value) && (value as PtcError).code === code
    } catch {
      return false
    }
  }
}

/** Whether `value` carries the PtcError marker; never throws. */
function hasMarker(value: unknown): boolean {
  // A thrown value can be a hostile or revoked Proxy: classifying it must not throw.
  try {
    return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[marker] === true
  } catch {
    return false
  }
}

/** Arguments or a value that JSON cannot carry losslessly (S6.1). `details.path` is a JSON path. */
export class NotJsonError extends PtcError {
  constructor(message: string, path: string) {
    super('not-json', `${path}: ${message}`, { details: { path } })
  }
}

/** Thrown by a `tools/execute` wrapper (the timeout policy) when a call's budget ran out. */
export class ToolTimeoutError extends PtcError {
  constructor(name: string, timeoutMs: number) {
    super('timeout', `Tool "${name}" did not finish within its ${timeoutMs} ms budget and was stopped.`, {
      details: { timeoutMs },
    })
  }

  static override isInstance(value: unknown): value is ToolTimeoutError {
    return PtcError.hasCode(value, 'timeout')
  }
}

/** Registration problems: a duplicate tool name, an invalid definition. Thrown by `register()`. */
export class ToolDefinitionError extends PtcError {
  constructor(message: string, name: string) {
    super('tool-definition', message, { details: { name } })
  }
}

/**
 * Thrown by a tool body when a boundary it enforces at the moment of use refuses the call (a
 * path outside the workspace, a write the read-before-edit gate refuses). The pipeline turns it
 * into a `denied` result, the same kind a policy denial has, not a tool failure (S5.1, S8).
 */
export class ToolDeniedError extends PtcError {
  constructor(reason: string, details?: Record<string, unknown>) {
    super('denied', reason, details === undefined ? undefined : { details })
  }

  static override isInstance(value: unknown): value is ToolDeniedError {
    return PtcError.hasCode(value, 'denied')
  }
}

/**
 * Thrown by an approval responder (`approval/request`, S8) that could not get an answer: its
 * channel failed (an MCP client's elicitation errored or timed out, or the client cannot be asked
 * at all), not the person. The call is still denied (S5.3, S8.2), but its error says the approval
 * could not be obtained, with `message` (why: the channel's own error) and `details.advice` (what
 * to do), instead of saying it was refused; the journal records the approval as `unavailable`.
 */
export class ApprovalNotObtainedError extends PtcError {
  /** `reason`: why no answer came, as a clause (`nobody answered … within 300 ms`); `advice`: what to do, as a sentence. */
  constructor(reason: string, advice: string) {
    super('approval-not-obtained', reason, { details: { advice } })
  }

  static override isInstance(value: unknown): value is ApprovalNotObtainedError {
    return PtcError.hasCode(value, 'approval-not-obtained')
  }
}
