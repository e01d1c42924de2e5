/**
 * The registry name of an imported MCP tool: `${server}__${tool}`, reduced to the `defineTool`
 * name rules (`[A-Za-z_][A-Za-z0-9_.-]*`, at most 128 characters) so any server's names register.
 */

const MAX_LENGTH = 128

/**
 * `mcpToolName('fs', 'read_text_file')` → `fs__read_text_file`. Characters outside
 * `[A-Za-z0-9_.-]` become `_`; a leading digit, `.` or `-` gets a `_` prefix; the result is cut to
 * 128 characters. Pure. Distinct inputs can collide (`a b` and `a_b`): the registry reports that
 * as a duplicate-name error.
 */
export function mcpToolName(server: string, tool: string): string {
  const joined = `${server}__${tool}`.replace(/[^A-Za-z0-9_.-]/g, '_')
  const named = /^[A-Za-z_]/.test(joined) ? joined : `_${joined}`
  return named.slice(0, MAX_LENGTH)
}
