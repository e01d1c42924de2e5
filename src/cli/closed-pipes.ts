/**
 * What becomes of output that cannot be written. A reader that stops reading (`ptc run big.ts |
 * head -c 20`) closes the pipe under stdout or stderr; the next write then fails with EPIPE, which
 * Node raises as an unhandled 'error' event that crashes the process with a stack trace and exit
 * code 1, though the run succeeded. As other command-line tools do, the output nobody reads any
 * more is dropped instead, and the command ends with its own exit code. Any other write error
 * (`ptc typegen > tools.d.ts` on a full disk: ENOSPC; a closed descriptor: EBADF) is kept, and
 * the bin script ends a command that would have exited 0 with exit code 1 and one `ptc:` line
 * naming it, so a lost output never looks like success.
 */

let failure: NodeJS.ErrnoException | undefined

/**
 * Drops further output to stdout and stderr once a reader closed them (EPIPE) and keeps the first
 * other write error for {@link outputFailure}. Idempotent.
 */
export function ignoreClosedPipes(): void {
  for (const stream of [process.stdout, process.stderr]) {
    if (stream.listeners('error').includes(keepWriteError)) continue
    stream.on('error', keepWriteError)
  }
}

/**
 * The first error other than EPIPE met writing stdout or stderr since {@link ignoreClosedPipes},
 * as `ptc: could not write the output: MESSAGE.` (Node's message names the code); undefined when there was none.
 */
export function outputFailure(): string | undefined {
  return failure && `ptc: could not write the output: ${failure.message}.`
}

/**
 * Keeps `error` (from a write to stdout or stderr, or its callback) for {@link outputFailure}
 * unless it is EPIPE, or the stream's own report of an earlier error (ERR_STREAM_DESTROYED); null
 * and undefined are no error.
 */
export function keepWriteError(error: NodeJS.ErrnoException | null | undefined): void {
  if (error && error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') failure ??= error
}
