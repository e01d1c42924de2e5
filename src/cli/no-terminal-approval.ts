/**
 * `ptc run`'s approval responder when stdin is not a terminal (SPEC S8.2): nobody can be asked,
 * so an `ask` is denied, but as an {@link ApprovalNotObtainedError} that tells a CLI user why
 * (stdin is not a terminal) and what to do (answer at a terminal, or choose a `--preset`), instead
 * of the library's "no approval responder answered … ctx.approval.respond", which a CLI user
 * cannot act on. It passes each request on first, so a responder a `--tools` module registered
 * still answers.
 */
import { ApprovalNotObtainedError } from '../errors/ptc-error.ts'
import type { ApprovalResponder } from '../policy/approval.ts'

/**
 * Answers what the next responder answers; when that is `unavailable` (nobody answered), throws an
 * {@link ApprovalNotObtainedError} saying stdin is not a terminal, so the call is not made and is
 * journaled `unavailable` (S8.2: headless means deny, never allow).
 */
export const noTerminalResponder: ApprovalResponder = async (_request, next) => {
  const outcome = await next()
  if (outcome !== 'unavailable') return outcome
  throw new ApprovalNotObtainedError(
    "ptc run's standard input is not a terminal, so no approval prompt could be shown",
    'Ask the user to run the script at a terminal and answer the prompt (y allows this one call), or to choose a --preset that allows such calls; until then, do the work without this call.',
  )
}
