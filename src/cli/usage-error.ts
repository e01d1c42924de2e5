/**
 * The CLI's one error for a mistake on the command line. Kept free of heavy imports: usage errors
 * are reported before any host module loads.
 */
import { PtcError } from '../errors/ptc-error.ts'

/** A usage problem (unknown flag, missing file, bad value): the CLI prints one `ptc:` line and exits 2. */
export class UsageError extends PtcError {
  constructor(message: string) {
    super('usage', message)
  }

  /** True for a UsageError, even from another copy of this module. Never throws. */
  static override isInstance(value: unknown): value is UsageError {
    return PtcError.hasCode(value, 'usage')
  }
}
