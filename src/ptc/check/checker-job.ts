/**
 * One script in one checker, the pool's side of the exchange (SPEC S9.1, `checker-contract.ts`):
 * the `prepare` message sent, with the declarations only when the checker does not hold them, and
 * the checker's answer matched to the script it was checking.
 */
import { createHash } from 'node:crypto'
import type { CheckerFailureMessage, CheckerParentMessage, CheckerPreparedMessage, PrepareRequest } from './checker-contract.ts'
import type { Checker } from './checker-pool-state.ts'

/** Must match `checker-service.ts`: both sides keep the same last 8 declaration hashes. */
const KEPT_DECLARATIONS = 8

/**
 * Largest message a checker process may send (256 MiB): a script's compiled code, source map and
 * diagnostics are a few times the script (512 KiB by default, PtcConfig.maxScriptBytes). A review
 * held the host's thread 9 s with a 1 GiB frame, the channel's general limit.
 */
export const MAX_CHECKER_MESSAGE_BYTES = 256 * 2 ** 20

/**
 * Sends script `id` to `checker`; the declarations go along only when it does not hold their hash
 * (it keeps the last {@link KEPT_DECLARATIONS}, as this side tracks). False when it cannot be reached.
 */
export function sendPrepare(checker: Checker, id: number, request: PrepareRequest, declarations: string): boolean {
  const hash = createHash('sha256').update(declarations).digest('base64')
  const held = checker.held.delete(hash)
  checker.held.set(hash, true)
  if (checker.held.size > KEPT_DECLARATIONS) checker.held.delete(checker.held.keys().next().value!)
  const message: CheckerParentMessage = { type: 'prepare', id, request, declarationsHash: hash, ...(!held && { declarations }) }
  return checker.channel.send(message)
}

/**
 * The checker's answer to the script it is checking finishes that script (`prepared`, or its own
 * failure as `crashed`). Late words of a checker the pool is stopping are dropped.
 * @throws Error for an answer to a script it is not checking (thrown into the channel, which
 *   stops the checker: a checker gone wrong could otherwise flood the host unasked).
 */
export function answerJob(checker: Checker, message: CheckerPreparedMessage | CheckerFailureMessage): void {
  if (checker.job?.id !== message.id) {
    if (checker.stopping) return
    throw new Error(`a checker answered script ${String(message.id)}, which it was not checking`)
  }
  if (message.type === 'prepared') return checker.job.finish({ kind: 'prepared', prepared: message.prepared }, true)
  checker.held.clear() // Resend declarations next time, in case that was the problem.
  checker.job.finish({ kind: 'crashed', message: `${message.error.name}: ${message.error.message}` }, true)
}
