/**
 * Which errors a command may throw that the CLI reports as one `ptc:` line with exit code 2
 * (a start-up problem the user can fix) rather than as an internal error.
 */
import { PtcError } from '../errors/ptc-error.ts'

/** `PtcError` codes of start-up problems: tool modules, serve refusals, MCP config and servers, the journal file. */
const STARTUP_CODES = new Set(['usage', 'tool-module', 'serve', 'mcp-config', 'mcp-connection', 'journal-unwritable'])

/**
 * True for an error the CLI reports as a usage-like start-up problem. Loads the tool-module
 * loader only when asked about a non-PtcError (by then the host is loaded anyway).
 */
export async function reportableStartupError(error: unknown): Promise<boolean> {
  if (PtcError.isInstance(error)) return STARTUP_CODES.has(error.code)
  if (!(error instanceof Error)) return false
  const { ToolModuleError } = await import('../host/load-tool-modules.ts')
  return error instanceof ToolModuleError
}
