/**
 * A reader that stops reading (`ptc run big.ts | head -c 20`) closes the pipe under stdout or
 * stderr; the next write then fails with EPIPE, which Node raises as an unhandled 'error' event
 * that crashes the process with a stack trace and exit code 1, though the run succeeded. As other
 * command-line tools do, the output nobody reads any more is dropped instead, and the command
 * ends with its own exit code.
 */

/**
 * Drops further output to stdout and stderr once a reader closed them (EPIPE). Other write errors
 * are rethrown as before. Idempotent.
 */
export function ignoreClosedPipes(): void {
  for (const stream of [process.stdout, process.stderr]) {
    if (stream.listeners('error').includes(onError)) continue
    stream.on('error', onError)
  }
}

function onError(error: NodeJS.ErrnoException): void {
  if (error.code !== 'EPIPE') throw error
}
