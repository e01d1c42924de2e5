/**
 * How a `run_code` run ends when the script did not end it itself (SPEC S9; issue 16: "one place
 * for run endings"): the statuses and the readable `error` a model gets, each saying what ended
 * the run, the limit involved and what to do.
 */

/** A run's `error`: a name a program can switch on and a message for the model. */
export interface RunError {
  name: string
  message: string
}

/** The caller aborted the run's signal (status `cancelled`). */
export function cancelledError(): RunError {
  return { name: 'CancelledError', message: 'The run was cancelled by the caller before the script finished; no further tool calls were made.' }
}
