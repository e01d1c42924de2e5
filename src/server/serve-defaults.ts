/**
 * The defaults of `ptc serve`, in a module with no imports so the CLI's help can show them
 * without loading the server.
 */

/** Default bind address. */
export const DEFAULT_HTTP_HOST = '127.0.0.1'
/** Default port. */
export const DEFAULT_HTTP_PORT = 8765
/** Default time a session may go without a request in flight before it is closed, in ms (30 min). */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60 * 1000
/** Default number of sessions that may be open at once. */
export const DEFAULT_MAX_SESSIONS = 100
/** Default number of `run_code` executions that may run at once across all sessions. */
export const DEFAULT_MAX_CONCURRENT_RUNS = 4
/** Default number of `run_code` calls that may wait for a slot, across all sessions. */
export const DEFAULT_MAX_QUEUED_RUNS = 64
/** Least default number of `run_code` calls one session may have running or waiting at once. */
export const DEFAULT_MAX_RUNS_PER_SESSION = 4
