/**
 * The rows and pages of `/api/sessions` (SPEC S11.6): the contract the viewer's server sends and its
 * browser app reads. Types only, so both sides import it (the app has no Node types).
 */

/** One session as the list shows it. Times are ISO 8601 strings. */
export interface SessionSummary {
  /** The journal file name; pass it to `page` and `follow`. */
  id: string
  /** When the session started: the journal name's time stamp, else the file's last write. */
  time: string
  /** Last write to the journal. */
  updated: string
  /** The agent of the first call (`cli`, `mcp-<uuid>`), when known. */
  agent?: string
  /** The MCP session id the records carry (`session`, written by `ptc serve`), when they do. */
  mcpSession?: string
  /** `run_code` calls. */
  runs: number
  /** All calls, `run_code` and tool calls from code included. */
  calls: number
  /** Results with `isError`, and `run_code` results whose status is not `ok`. */
  failures: number
  /** Calls with no result yet. */
  running: number
  bytes: number
}

/** One page of the list. `page` is 1-based; `pages` is at least 1. */
export interface SessionPage {
  sessions: SessionSummary[]
  page: number
  pages: number
  total: number
}
