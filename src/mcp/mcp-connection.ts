/**
 * One connection to an imported MCP server (stdio): the SDK's `Client` over a
 * `StdioClientTransport`. It keeps the tail of the server's stderr and remembers when the
 * connection closed, so a crashed or hung server turns into failed calls with clear messages
 * ("MCP server "x" exited while …; last stderr: …") instead of a hung run.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { ErrorCode, McpError, type CallToolResult, type Tool as McpTool } from '@modelcontextprotocol/sdk/types.js'
import { PtcError } from '../errors/ptc-error.ts'
import { DEFAULT_MCP_TIMEOUT_MS, type McpServerConfig } from './mcp-config.ts'

const STDERR_TAIL_CHARS = 2_000
/** The least time a server gets to spawn and finish the handshake, in ms (npx may download first). */
export const MIN_START_TIMEOUT_MS = 30_000

/** A call to an imported server failed below the tool level: not started, crashed, timed out. */
export class McpConnectionError extends PtcError {
  constructor(message: string, server: string, options?: { cause?: unknown }) {
    super('mcp-connection', message, { details: { server }, ...options })
  }
}

/** A started MCP server. Create with {@link McpConnection.start}; `close()` stops the process. */
export class McpConnection {
  readonly server: string
  readonly config: McpServerConfig
  readonly _client: Client
  readonly _transport: StdioClientTransport
  _stderr = ''
  _closed = false

  private constructor(server: string, config: McpServerConfig) {
    this.server = server
    this.config = config
    this._client = new Client({ name: 'ptc-runner', version: '0.1.0' })
    this._transport = new StdioClientTransport({
      command: config.command,
      args: config.args,
      env: { ...getDefaultEnvironment(), ...config.env },
      ...(config.cwd !== undefined && { cwd: config.cwd }),
      stderr: 'pipe',
    })
    // The stream must be drained, or a chatty server blocks on a full pipe.
    this._transport.stderr?.on('data', (chunk: Buffer) => {
      this._stderr = (this._stderr + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS)
    })
    this._client.onclose = () => {
      this._closed = true
    }
  }

  /** Per-call budget in ms (config `timeoutMs`, default 60,000). */
  get timeoutMs(): number {
    return this.config.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS
  }

  /**
   * Spawn the server and run the MCP handshake within `max(timeoutMs, MIN_START_TIMEOUT_MS)`.
   * @throws McpConnectionError when the process cannot start or does not complete the handshake.
   */
  static async start(server: string, config: McpServerConfig): Promise<McpConnection> {
    const connection = new McpConnection(server, config)
    try {
      await connection._client.connect(connection._transport, { timeout: Math.max(connection.timeoutMs, MIN_START_TIMEOUT_MS) })
    } catch (error) {
      await connection.close()
      throw new McpConnectionError(`MCP server "${server}" (${[config.command, ...config.args].join(' ')}) could not start: ${describe(error)}${connection.stderrNote()}`, server, { cause: error })
    }
    return connection
  }

  /** Every tool the server lists, following pagination cursors. */
  async listTools(): Promise<McpTool[]> {
    const tools: McpTool[] = []
    let cursor: string | undefined
    do {
      const page = await this._client.listTools(cursor === undefined ? {} : { cursor }, { timeout: this.timeoutMs })
      tools.push(...page.tools)
      cursor = page.nextCursor
    } while (cursor)
    return tools
  }

  /**
   * Call one tool. A result with `isError` is returned as is (a tool-level failure); everything
   * below the tool level throws.
   * @throws McpConnectionError when the server is gone, exits during the call, or does not answer
   *   within `timeoutMs`; the caller's `AbortSignal` reason when `signal` aborts.
   */
  async callTool(tool: string, args: unknown, signal: AbortSignal): Promise<CallToolResult> {
    if (this._closed) throw new McpConnectionError(`MCP server "${this.server}" is not running (it exited earlier), so "${tool}" could not be called.${this.stderrNote()}`, this.server)
    try {
      return (await this._client.callTool({ name: tool, arguments: args as Record<string, unknown> }, undefined, { signal, timeout: this.timeoutMs })) as CallToolResult
    } catch (error) {
      if (signal.aborted) throw signal.reason ?? error
      if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
        throw new McpConnectionError(`MCP server "${this.server}" did not answer "${tool}" within ${this.timeoutMs} ms.`, this.server, { cause: error })
      }
      if (this._closed || (error instanceof McpError && error.code === ErrorCode.ConnectionClosed)) {
        throw new McpConnectionError(`MCP server "${this.server}" exited while "${tool}" was running.${this.stderrNote()}`, this.server, { cause: error })
      }
      throw error
    }
  }

  /** Close the client and stop the server process. Never throws. */
  async close(): Promise<void> {
    this._closed = true
    try {
      await this._client.close()
    } catch {
      // Already gone: nothing left to stop.
    }
  }

  private stderrNote(): string {
    const tail = this._stderr.trim()
    return tail ? ` Last stderr: ${tail.split('\n').slice(-5).join(' | ')}` : ''
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
