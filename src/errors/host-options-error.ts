/**
 * The error of an invalid `createHost` option (issue 14 item 4): `builtins`, `stateDir` or
 * `journalRetention`. Kept import-light: the CLI reports `--builtins` mistakes with it before any
 * host module loads.
 */
import { PtcError } from './ptc-error.ts'

/** An invalid host option; the message names what is allowed (code `host-options`). */
export class HostOptionsError extends PtcError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('host-options', message, details === undefined ? undefined : { details })
  }
}
