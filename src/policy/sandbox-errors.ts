/**
 * Errors of the command sandbox (SPEC S8). These are infrastructure failures, so they throw; the
 * pipeline turns them into `isError` results (S6.5). They extend the project's `PtcError`
 * (stable `code`, structured `details`, `isInstance` across module copies).
 */
import { PtcError } from '../errors/ptc-error.ts'

/** Stable codes of sandbox errors. */
export type SandboxErrorCode = 'sandbox-unavailable' | 'sandbox-policy-invalid' | 'sandbox-request-invalid'

/**
 * A sandbox policy or request problem (S8): `sandbox-policy-invalid` (a relative or missing root,
 * an unknown mode) or `sandbox-request-invalid` (empty argv, bad cwd). `details` names the input.
 */
export class SandboxError extends PtcError {
  declare readonly code: SandboxErrorCode

  constructor(code: SandboxErrorCode, message: string, details: Record<string, unknown> = {}, cause?: unknown) {
    super(code, message, { details, cause })
  }

  /** True for any sandbox error, even one from another copy of this module. */
  static override isInstance(value: unknown): value is SandboxError {
    return PtcError.isInstance(value) && typeof value.code === 'string' && value.code.startsWith('sandbox-')
  }
}

/**
 * Thrown by `ctx.sandbox.wrap` when a sandboxed mode is requested but bubblewrap is missing or
 * cannot create namespaces (S8, S8.2: refuse, never run unconfined), or when its probe did not
 * answer in time (`timedOut`: bwrap may well be installed, the machine was too busy; the next
 * call probes again). Code `sandbox-unavailable`; `details`: `{ bwrapPath, cause, timedOut? }`,
 * `cause` being the probe's failure text.
 */
export class SandboxUnavailableError extends SandboxError {
  constructor(details: { bwrapPath: string; cause: string; timedOut?: boolean }) {
    super(
      'sandbox-unavailable',
      details.timedOut
        ? `the bubblewrap (bwrap) sandbox probe ${details.cause} (${details.bwrapPath} did not answer: the machine may be busy), so this command was refused: ` +
            'try again; the next sandboxed command probes again'
        : 'bubblewrap (bwrap) is not installed or cannot create namespaces: install the Debian package bubblewrap, ' +
            `or choose the danger-full-access preset to run unconfined (probe of ${details.bwrapPath}: ${details.cause})`,
      details,
    )
  }

  /** True for a `SandboxUnavailableError`, even one from another copy of this module. */
  static override isInstance(value: unknown): value is SandboxUnavailableError {
    return PtcError.hasCode(value, 'sandbox-unavailable')
  }
}
