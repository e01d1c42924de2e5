/**
 * How a run ends when its check step does (SPEC S9.1, S9.7): type-checking or compiling used the
 * whole deadline, or the checker died on the script. The isolate run's own endings are in
 * `isolate/run-endings.ts`.
 */
import type { RunEnding } from './isolate/run-endings.ts'

/**
 * Checking (`typecheck`) or compiling used the whole deadline; the checker was killed (status
 * `timeout`). `waiting`: the deadline passed before any checker was free, so the script's own
 * types had no part in it (every checker busy with other scripts).
 */
export function checkTimeoutEnding(deadlineMs: number, typecheck: boolean, waiting = false): RunEnding {
  if (waiting) {
    return {
      status: 'timeout',
      error: { name: 'TimeoutError', message: `The script waited its whole ${deadlineMs} ms deadline (timeoutMs) for a free type checker: every one was busy with other scripts, so it was not ${typecheck ? 'checked' : 'compiled'} and no code ran. Run it again, or raise timeoutMs; an operator can add checkers (--checkers, PtcConfig.checkers).` },
    }
  }
  // Under a second, the deadline is the likelier cause: a check takes tens to hundreds of ms.
  const advice =
    deadlineMs < 1_000
      ? `A deadline of ${deadlineMs} ms leaves little time for ${typecheck ? 'type-checking' : 'compiling'}, which takes tens to hundreds of ms: raise timeoutMs${typecheck ? ", or simplify the script's types" : ''}.`
      : typecheck
        ? "Simplify the script's types (deeply recursive or very large types), or raise timeoutMs."
        : 'Send a smaller script or raise timeoutMs.'
  return {
    status: 'timeout',
    error: { name: 'TimeoutError', message: `${typecheck ? 'Type-checking' : 'Compiling'} the script used up the run's ${deadlineMs} ms deadline (timeoutMs); the checker was stopped and no code ran. ${advice}` },
  }
}

/** Signals that stop a process from outside it: another process, an operator, the system's out-of-memory killer. */
const OUTSIDE_STOP = /\bsignal SIG(KILL|TERM|INT|HUP|QUIT)\b/

/**
 * What a checker dies of when a script's types are too large for it: its heap limit (a process
 * aborts, a thread ends with ERR_WORKER_OUT_OF_MEMORY), or TypeScript overflowing its stack.
 */
const SCRIPT_CRASH = /\bsignal SIG(ABRT|SEGV|BUS|ILL|TRAP)\b|out of memory|OUT_OF_MEMORY|heap|RangeError|call stack/i

/**
 * The checker died or failed while on this script (status `error`). `what` says how, as the
 * pool's `crashed` outcome has it (`signal SIGKILL`, `exit code 1`, `it could not be reached`, or
 * the checker's own error, `RangeError: Maximum call stack size exceeded`). Three causes, three
 * pieces of advice: a signal from outside (another process, the system's OOM killer) is not the
 * script's, so run it again first; a heap limit or a stack overflow in TypeScript is its types';
 * anything else (the checker unreachable, an unreadable message, an unexpected exit) is the
 * checker's own failure: run again, and report it if it keeps happening. `typecheck: false` is
 * suggested only to a run that type-checked.
 */
export function checkerCrashEnding(what: string, typecheck: boolean): RunEnding {
  const doing = typecheck ? 'type-checking' : 'compiling'
  const orUnchecked = typecheck ? ' or run it with typecheck: false' : ''
  let message: string
  if (OUTSIDE_STOP.test(what)) {
    message = `The checker was stopped from outside while ${doing} the script (${what}): by another process, or by the system when memory ran short; no code ran. Run the script again; if it stops the checker every time, ${typecheck ? 'its types may be too large to check: simplify them or run it with typecheck: false' : 'send a smaller script'}.`
  } else if (/call stack/i.test(what)) {
    message = `${typecheck ? 'Type-checking' : 'Compiling'} the script overflowed the checker's stack (${what}): the script nests too deeply (brackets, calls or expressions inside one another)${typecheck ? ' or its types are deeply recursive' : ''}; no code ran. Flatten its deepest nesting${typecheck ? ' or simplify its types' : ''}.`
  } else if (SCRIPT_CRASH.test(what)) {
    message = typecheck
      ? `Type-checking the script stopped the checker (${what}), typically from types too large to check; no code ran. Simplify the script's types${orUnchecked}.`
      : `Compiling the script stopped the checker (${what}); no code ran. Send a smaller or simpler script.`
  } else {
    message = `The checker failed while ${doing} the script (${what}); this is not the script's doing, and no code ran. Run the script again${orUnchecked}; if it keeps failing, the host's checker is broken: report this message.`
  }
  return { status: 'error', error: { name: 'CheckerCrashError', message } }
}
