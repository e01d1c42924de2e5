/**
 * A Ctrl-C that comes while `ptc run` is still starting: before its host exists, Node's default
 * would end the process at once, with no `--json` answer (README: `{"status":"failed","error":
 * {"kind":"cancelled",…}}` and exit code 130). The bin script starts watching as soon as it knows
 * the command is `run` ({@link watchEarlyInterrupt}); the run takes over the signal once its host
 * is made, and a Ctrl-C that came meanwhile cancels it at once ({@link endEarlyInterrupt}).
 */

let interrupted = false
const record = (): void => {
  interrupted = true
}

/** Records SIGINT instead of letting it end the process, until {@link endEarlyInterrupt}. Idempotent. */
export function watchEarlyInterrupt(): void {
  if (!process.listeners('SIGINT').includes(record)) process.on('SIGINT', record)
}

/** Stops the watch; whether a SIGINT came while it was on. */
export function endEarlyInterrupt(): boolean {
  process.off('SIGINT', record)
  return interrupted
}
