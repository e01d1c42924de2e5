/**
 * The MCP import plugin (SPEC S1.4, S2.2, S9.1): starts every server of an `--mcp-config` with the
 * SDK's client and registers each of its tools as `${server}__${tool}` (or `${server}__${rename}`).
 * Each listed tool is checked on its own: a malformed one, or one whose name is already taken (two
 * names that clean to the same registry name), is left out with one warning line naming the
 * server, the tool(s), why, and the config fix; the rest are registered. Everything belongs to this
 * plugin's fiber: disposing it (closing the host) unregisters the tools and closes the clients,
 * which stops the server processes. A server that stops is started again by the next call to one
 * of its tools (`SupervisedConnection`, under `RestartPolicy`).
 */
import type { Context } from 'cordis'
import type { McpConfig } from './mcp-config.ts'
import type { RestartPolicy } from './restart-policy.ts'
import { SupervisedConnection } from './supervised-connection.ts'
import { checkMcpTool } from './check-mcp-tool.ts'
import { importedTool } from './imported-tool.ts'
import { mcpToolName } from './mcp-tool-name.ts'

export const name = 'mcp-import'
export const inject = ['tools']

/** The validated config (see `loadMcpConfig`), and where warnings go (default stderr). */
export interface Config extends McpConfig {
  warn?: (message: string) => void
  /** Start-up budget per server (handshake and tool listing), in ms; default max(timeoutMs, 30 s). */
  startTimeoutMs?: number
  /** When a stopped server is started again (default `DEFAULT_RESTART_POLICY`: 5 a minute, backoff 0, 1, 2, 4, 8 s). */
  restartPolicy?: RestartPolicy
}

/**
 * Start the servers in parallel, then register their tools. If any server fails to start or to
 * list its tools, the ones already started are closed and the plugin fails with that error
 * (`McpConnectionError`), so a broken config is seen at start-up, not at the first call.
 */
export async function apply(ctx: Context, config: Config) {
  const warn = config.warn ?? ((message: string) => process.stderr.write(`ptc: ${message}\n`))
  const started: SupervisedConnection[] = []
  ctx.effect(() => () => Promise.all(started.map((connection) => connection.close())).then(() => {}), 'mcp-import connections')
  // allSettled: a server still starting when another fails must not be left running.
  const settled = await Promise.allSettled(
    Object.entries(config.mcpServers).map(async ([server, serverConfig]) => {
      const connection = await SupervisedConnection.start(server, serverConfig, {
        ...(config.startTimeoutMs !== undefined && { startTimeoutMs: config.startTimeoutMs }),
        ...(config.restartPolicy && { restartPolicy: config.restartPolicy }),
      })
      started.push(connection)
      return { connection, tools: await connection.listTools() }
    }),
  )
  const failed = settled.find((outcome) => outcome.status === 'rejected')
  if (failed) throw failed.reason
  const listed = settled.map((outcome) => (outcome as PromiseFulfilledResult<{ connection: SupervisedConnection; tools: unknown[] }>).value)
  // Registry name → who took it, for the collision warning.
  const taken = new Map<string, string>()
  for (const { connection, tools } of listed) {
    const { server } = connection
    const { include, exclude = [], rename = {} } = connection.config
    const seen = new Set<string>()
    // Names the server lists more than once: only the first is imported, with one warning each.
    const repeated = new Map<string, number>()
    for (const raw of tools) {
      const checked = checkMcpTool(raw)
      if (!checked.ok) {
        warn(`MCP server "${server}": tool "${checked.name}" is left out: ${checked.problem}.`)
        continue
      }
      const tool = checked.tool
      if (seen.has(tool.name)) {
        repeated.set(tool.name, (repeated.get(tool.name) ?? 1) + 1)
        continue
      }
      seen.add(tool.name)
      if ((include && !include.includes(tool.name)) || exclude.includes(tool.name)) continue
      // Own keys only: a tool named "constructor" or "toString" must not find Object.prototype's.
      const name = mcpToolName(server, (Object.hasOwn(rename, tool.name) ? rename[tool.name] : undefined) ?? tool.name)
      const owner = taken.get(name) ?? (ctx.tools.get(name) ? `the registered tool "${name}"` : undefined)
      if (owner !== undefined) {
        warn(
          `MCP server "${server}": tool "${tool.name}" is left out: its name ${name} is already taken by ${owner}. ` +
            `To keep it, add "rename": {${JSON.stringify(tool.name)}: "<new name>"} (or "exclude": [${JSON.stringify(tool.name)}]) to server "${server}" in the MCP config.`,
        )
        continue
      }
      try {
        ctx.tools.register(importedTool(connection, tool, { warn, name }))
        taken.set(name, `tool "${tool.name}" of server "${server}"`)
      } catch (error) {
        warn(`MCP server "${server}": tool "${tool.name}" is left out: ${(error as Error).message}`)
      }
    }
    for (const [name, times] of repeated) {
      warn(`MCP server "${server}": it lists tool "${name}" ${times} times; only the first is imported (a call by that name could not say which is meant).`)
    }
    for (const wanted of [...(include ?? []), ...exclude, ...Object.keys(rename)]) {
      if (!seen.has(wanted)) warn(`MCP server "${server}": the config names tool "${wanted}" (include/exclude/rename), but the server does not list it.`)
    }
  }
}
