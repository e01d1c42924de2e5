/**
 * `ptc run`'s approval responders when no prompt can be answered on stdin (SPEC S8.2): it is not
 * a terminal, or the script was read from it (`ptc run -`). Nobody can be asked,
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
export const noTerminalResponder: ApprovalResponder = unanswerable(
  "ptc run's standard input is not a terminal, so no approval prompt could be shown",
  'Ask the user to run the script at a terminal and answer the prompt (y allows this one call), or to choose a --preset that allows such calls; until then, do the work without this call.',
)

/**
 * As {@link noTerminalResponder}, for a script read from standard input (`ptc run -`): stdin has
 * ended, at a terminal too (Ctrl-D), so no prompt shown there could ever be answered.
 */
export const stdinScriptResponder: ApprovalResponder = unanswerable(
  'the script was read from standard input, so no approval prompt can be answered',
  'Ask the user to pass the script as a file (ptc run script.ts) at a terminal to answer prompts (y allows this one call), or to choose a --preset that allows such calls; until then, do the work without this call.',
)

/** A responder that passes each request on and turns `unavailable` into this error. */
function unanswerable(reason: string, advice: string): ApprovalResponder {
  return async (_request, next) => {
    const outcome = await next()
    if (outcome !== 'unavailable') return outcome
    throw new ApprovalNotObtainedError(reason, advice)
  }
}
