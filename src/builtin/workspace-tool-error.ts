/**
 * The refusal a workspace tool reports for a request it cannot carry out (SPEC S8).
 */
import { PtcError } from '../errors/ptc-error.ts'

/** Stable codes of workspace tool refusals. */
export type WorkspaceToolErrorCode = 'invalid-request'

/**
 * A workspace tool refused a request (S8): a path the sandbox policy denies, a write the
 * `fs/write-gate` denied, or a request that cannot be carried out (no match for an edit...). The
 * message is model-facing and says what to do instead; the pipeline makes it an `isError` result.
 */
export class WorkspaceToolError extends PtcError {
  declare readonly code: WorkspaceToolErrorCode

  constructor(code: WorkspaceToolErrorCode, message: string, details: Record<string, unknown> = {}) {
    super(code, message, { details })
  }
}
