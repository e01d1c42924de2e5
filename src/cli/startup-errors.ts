/**
 * Which errors a command may throw that the CLI reports as one `ptc:` line with exit code 2
 * (a start-up problem the user can fix) rather than as an internal error.
 */
import { PtcError, type PtcErrorCode } from '../errors/ptc-error.ts'

/**
 * `PtcError` codes of start-up problems: host options, tool modules, serve refusals, MCP config
 * and servers, the journal file, and the workspace's state folder (`sandbox-policy-invalid`: a
 * `.ptc` that is a symlink, as a security review planted; only `createHost` throws it out of a
 * command, a tool's sandbox error being its call's result).
 */
const STARTUP_CODES: ReadonlySet<PtcErrorCode> = new Set<PtcErrorCode>(['usage', 'host-options', 'tool-module', 'serve', 'mcp-config', 'mcp-connection', 'journal-unwritable', 'sandbox-policy-invalid'])

/** True for an error the CLI reports as a usage-like start-up problem (every one is a `PtcError`). */
export function reportableStartupError(error: unknown): boolean {
  return PtcError.isInstance(error) && STARTUP_CODES.has(error.code)
}
