/**
 * Refusals of `ptc view` (SPEC S11.6): a bind that would expose the journals without a token, a
 * bad port, a session name that does not name a journal of the workspace. `code` says which;
 * the viewer answers `view-not-found` with 404, `view-bad-request` with 400 and `view-refused` (the
 * journal folder is reached through a symbolic link) with 403.
 */
import { PtcError } from '../errors/ptc-error.ts'

/** Stable codes of {@link ViewError}. */
export type ViewErrorCode = 'view-exposure' | 'view-not-found' | 'view-bad-request' | 'view-refused' | 'view-client-build'

/** `ptc view` refused something; `message` says what was wrong and what to do instead. */
export class ViewError extends PtcError {
  declare readonly code: ViewErrorCode

  constructor(code: ViewErrorCode, message: string, details?: Record<string, unknown>) {
    super(code, message, { ...(details && { details }) })
  }
}
