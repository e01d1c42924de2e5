/**
 * A Ctrl-C that comes while `ptc run` is still starting (reading its script, loading the host
 * and its tool modules): before its run takes the signal, Node's default would end the process
 * with no `--json` answer. From the moment the bin script knows the command is `run`
 * ({@link watchEarlyInterrupt}) until the run takes over ({@link endEarlyInterrupt}), a SIGINT
 * ends the process at once as a cancelled run does: with `--json`, `{"status":"failed","error":
 * {"kind":"cancelled",…}}` on stdout (README, `ptc run --json`), a `ptc:` line on stderr, exit
 * code 130. Nothing ran; the prestarted isolate worker is killed with the process.
 */

/** `ptc run`'s exit code after Ctrl-C (SIGINT, as shells report it). */
export const INTERRUPTED = 130

/** What a run interrupted before it started says (the `error.message` of the `--json` answer). */
export const INTERRUPTED_BEFORE_RUN = 'ptc run was interrupted (Ctrl-C) before its run started; nothing ran.'

let json = false
const onInterrupt = (): void => {
  const answer = { status: 'failed', error: { kind: 'cancelled', message: INTERRUPTED_BEFORE_RUN } }
  if (json) process.stdout.write(`${JSON.stringify(answer)}\n`)
  process.stderr.write(`ptc: ${INTERRUPTED_BEFORE_RUN}\n`, () => process.exit(INTERRUPTED))
}

/**
 * Ends the process on SIGINT as described above (`asJson`: whether `--json` was given), until
 * {@link endEarlyInterrupt}. Idempotent.
 */
export function watchEarlyInterrupt(asJson: boolean): void {
  json = asJson
  if (!process.listeners('SIGINT').includes(onInterrupt)) process.on('SIGINT', onInterrupt)
}

/** Stops the watch: the caller has its own SIGINT listener by now. */
export function endEarlyInterrupt(): void {
  process.off('SIGINT', onInterrupt)
}
