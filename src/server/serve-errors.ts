/**
 * Start-up refusals of `ptc serve` (a bind that would expose run_code without a token, a bad port):
 * thrown before anything listens, reported by the CLI as a usage error.
 */
import { PtcError } from '../errors/ptc-error.ts'

/** `ptc serve` refused to start; `message` says what to change. */
export class ServeError extends PtcError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('serve', message, { ...(details && { details }) })
  }
}
