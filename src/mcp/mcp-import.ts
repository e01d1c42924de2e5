/**
 * The MCP import plugin (SPEC S1.4, S2.2, S9.1): starts every server of an `--mcp-config` with the
 * SDK's client and registers each of its tools as `${server}__${tool}`. Everything belongs to this
 * plugin's fiber: disposing it (closing the host) unregisters the tools and closes the clients,
 * which stops the server processes.
 */
import type { Tool as McpTool } from '@modelcontextprotocol/sdk/types.js'
import type { Context } from 'cordis'
import type { McpConfig } from './mcp-config.ts'
import { McpConnection } from './mcp-connection.ts'
import { importedTool } from './imported-tool.ts'

export const name = 'mcp-import'
export const inject = ['tools']

/** The validated config (see `loadMcpConfig`), and where warnings go (default stderr). */
export interface Config extends McpConfig {
  warn?: (message: string) => void
  /** Start-up budget per server (handshake and tool listing), in ms; default max(timeoutMs, 30 s). */
  startTimeoutMs?: number
}

/**
 * Start the servers in parallel, then register their tools. If any server fails to start or to
 * list its tools, the ones already started are closed and the plugin fails with that error
 * (`McpConnectionError`), so a broken config is seen at start-up, not at the first call.
 */
export async function apply(ctx: Context, config: Config) {
  const warn = config.warn ?? ((message: string) => process.stderr.write(`ptc: ${message}\n`))
  const started: McpConnection[] = []
  ctx.effect(() => () => Promise.all(started.map((connection) => connection.close())).then(() => {}), 'mcp-import connections')
  // allSettled: a server still starting when another fails must not be left running.
  const settled = await Promise.allSettled(
    Object.entries(config.mcpServers).map(async ([server, serverConfig]) => {
      const connection = await McpConnection.start(server, serverConfig, config.startTimeoutMs !== undefined ? { startTimeoutMs: config.startTimeoutMs } : {})
      started.push(connection)
      return { connection, tools: await connection.listTools() }
    }),
  )
  const failed = settled.find((outcome) => outcome.status === 'rejected')
  if (failed) throw failed.reason
  const listed = settled.map((outcome) => (outcome as PromiseFulfilledResult<{ connection: McpConnection; tools: McpTool[] }>).value)
  for (const { connection, tools } of listed) {
    for (const tool of tools) ctx.tools.register(importedTool(connection, tool, { warn }))
  }
}
