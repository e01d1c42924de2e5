/**
 * One connection to an imported MCP server (stdio): the SDK's `Client` over a
 * `StdioClientTransport`, i.e. one server process. It keeps the tail of the server's stderr and
 * remembers when and why the connection closed, so a crashed or hung server turns into failed
 * calls with clear messages ("MCP server "x" exited while …; last stderr: …") instead of a hung
 * run. A closed connection stays closed: `SupervisedConnection` starts a new one.
 */
import type { ChildProcess } from 'node:child_process'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { getDefaultEnvironment, type StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { CallToolResultSchema, ErrorCode, McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { z } from 'zod'
import { describeThrown } from '../errors/describe-thrown.ts'
import { PtcError } from '../errors/ptc-error.ts'
import { PACKAGE_NAME, PACKAGE_VERSION } from '../package-version.ts'
import { DEFAULT_MCP_TIMEOUT_MS, type McpServerConfig } from './mcp-config.ts'
import { stopAtExit } from '../stop-at-exit.ts'
import { stdioClientTransport } from './line-buffer.ts'
import { sdkStdioChild } from './sdk-internals.ts'

const STDERR_TAIL_CHARS = 2_000
/** How long a closing server may take to exit after its stdin closed before it gets SIGTERM (then as long again before SIGKILL), in ms. */
export const CLOSE_GRACE_MS = 500

// One page of tools/list, each tool left unchecked: one malformed tool must not lose the others
// (the SDK's own listTools rejects the whole page), so tools are checked one by one on import.
const LenientToolPage = z.object({ tools: z.array(z.unknown()), nextCursor: z.string().optional() }).loose()
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
  /** When the connection closed (epoch ms by `_now`), once it has. */
  _closedAt: number | undefined
  readonly _now: () => number
  /** What happens next once the server stopped (e.g. "The next call restarts it."), told in the message of a call it failed. */
  _nextStep: (() => string) | undefined
  /** Why the connection closed, when ptc can tell (e.g. a message over the size limit). */
  _closeReason: string | undefined
  /** When the start-up budget (handshake and first tool listing) runs out, as `performance.now()`. */
  _startDeadline = Infinity
  /**
   * Forgets the server process for the exit hook once it has closed. Until then it gets SIGTERM
   * if this process exits first (`stopAtExit`): the SDK's close ends the server's stdin and
   * escalates only on timers that do not keep Node alive, so a `ptc` that exited first (a start-up
   * failure, Ctrl-C) left a server that ignores the end of its stdin running, orphaned.
   */
  _untrack: () => void = () => {}
  /** The server's process, taken from the SDK's transport once spawned (it forgets it as its close begins). */
  _child: ChildProcess | undefined

  private constructor(server: string, config: McpServerConfig, now: () => number) {
    this.server = server
    this.config = config
    this._now = now
    this._client = new Client({ name: PACKAGE_NAME, version: PACKAGE_VERSION })
    this._transport = stdioClientTransport({
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
      this._closedAt ??= now()
      this._untrack()
    }
    this._client.onerror = (error) => {
      // The SDK's stdio reader drops the connection (and stops the server) when one message is
      // bigger than its buffer: say so, instead of a bare "exited".
      const limit = /ReadBuffer exceeded maximum size of (\d+) bytes/.exec(error?.message ?? '')
      if (limit) this._closeReason ??= `it sent a message over the ${Math.round(Number(limit[1]) / 1024 / 1024)} MiB MCP stdio message limit, so the connection was dropped and the server stopped`
    }
  }

  /** Per-call budget in ms (config `timeoutMs`, default 60,000). */
  get timeoutMs(): number {
    return this.config.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS
  }

  /**
   * Spawn the server and run the MCP handshake within the start-up budget,
   * `max(timeoutMs, MIN_START_TIMEOUT_MS)` unless `options.startTimeoutMs` says otherwise. The
   * first {@link listTools} must finish within what is left of that budget. `options.now` (epoch
   * ms, default `Date.now`) stamps `_closedAt`.
   * @throws McpConnectionError when the process cannot start or does not complete the handshake.
   */
  static async start(server: string, config: McpServerConfig, options: { startTimeoutMs?: number; now?: () => number } = {}): Promise<McpConnection> {
    const connection = new McpConnection(server, config, options.now ?? Date.now)
    const budget = options.startTimeoutMs ?? Math.max(connection.timeoutMs, MIN_START_TIMEOUT_MS)
    connection._startDeadline = performance.now() + budget
    try {
      // The SDK spawns the server before connect's first await: its pid is known right after the call.
      const connecting = connection._client.connect(connection._transport, { timeout: budget })
      connection._child = sdkStdioChild(connection._transport)
      if (connection._child !== undefined) connection._untrack = stopAtExit(connection._child, 'SIGTERM')
      await connecting
    } catch (error) {
      await connection.close()
      const why = timedOut(error, budget) ? `it did not answer the handshake within ${budget} ms` : describeThrown(error).replace(/\.?$/, '')
      throw new McpConnectionError(`MCP server "${server}" (${[config.command, ...config.args].join(' ')}) could not start: ${why}.${connection.stderrNote()}`, server, { cause: error })
    }
    return connection
  }

  /**
   * Every tool the server lists, unchecked (see `checkMcpTool`), following pagination cursors. The first listing (at start-up)
   * must finish within what is left of the start-up budget; later ones get `timeoutMs` per page.
   * @throws McpConnectionError (with the server's name and stderr tail) when the server does not
   *   answer in time, exits, or answers with an error.
   */
  async listTools(): Promise<unknown[]> {
    const deadline = this._startDeadline
    this._startDeadline = Infinity
    const tools: unknown[] = []
    const cursors = new Set<string>()
    let cursor: string | undefined
    try {
      do {
        const timeout = Number.isFinite(deadline) ? Math.max(1, Math.round(deadline - performance.now())) : this.timeoutMs
        const page = await this._client.request({ method: 'tools/list', params: cursor === undefined ? {} : { cursor } }, LenientToolPage, { timeout })
        tools.push(...page.tools)
        cursor = page.nextCursor
        // A cursor given twice would list the same pages until the start-up budget ran out.
        if (cursor !== undefined && cursors.has(cursor)) throw new Error(`its tools/list gave the cursor ${JSON.stringify(cursor.slice(0, 100))} a second time (a loop)`)
        if (cursor !== undefined) cursors.add(cursor)
      } while (cursor)
    } catch (error) {
      const command = [this.config.command, ...this.config.args].join(' ')
      const what =
        timedOut(error) && !this._closed
          ? `answered the handshake but did not list its tools within ${Number.isFinite(deadline) ? 'the start-up time' : `${this.timeoutMs} ms`}`
          : this._closed
            ? 'exited while listing its tools'
            : zodIssues(error) !== undefined
              ? `answered tools/list with no tool list (${zodIssues(error)})`
              : `could not list its tools: ${describeThrown(error)}`
      throw new McpConnectionError(`MCP server "${this.server}" (${command}) ${what}.${this.stderrNote()}`, this.server, { cause: error })
    }
    return tools
  }

  /**
   * Call one tool. The result is returned as the server sent it (a result with `isError` is a
   * tool-level failure; `structuredContent` is not checked here, the imported tool does that);
   * everything below the tool level throws.
   * @throws McpConnectionError when the server is gone, exits during the call, or does not answer
   *   within `timeoutMs`; the caller's `AbortSignal` reason when `signal` aborts.
   */
  async callTool(tool: string, args: unknown, signal: AbortSignal): Promise<CallToolResult> {
    if (this._closed) {
      throw new McpConnectionError(`MCP server "${this.server}" is not running (it ${this.describeStop()}), so "${tool}" could not be called.${this.stderrNote()}`, this.server)
    }
    try {
      // Not `client.callTool`: it turns a text-only answer of a tool with an outputSchema, and an
      // error result whose structuredContent does not match, into protocol errors that lose the text.
      return (await this._client.request({ method: 'tools/call', params: { name: tool, arguments: args as Record<string, unknown> } }, CallToolResultSchema, { signal, timeout: this.timeoutMs })) as CallToolResult
    } catch (error) {
      if (signal.aborted) throw signal.reason ?? error
      if (timedOut(error, this.timeoutMs)) {
        throw new McpConnectionError(`MCP server "${this.server}" did not answer "${tool}" within ${this.timeoutMs} ms.`, this.server, { cause: error })
      }
      // The SDK rejects a closed connection's requests with -32000 after its onclose set
      // `_closed`; a server's own error answer with -32000 ("server error") is the tool's failure.
      if (this._closed) {
        // The close may be reported before the transport's error: give it a moment to say why.
        if (this._closeReason === undefined) await new Promise((resolve) => setImmediate(resolve))
        const what = this._closeReason ? `closed its connection while "${tool}" was running: ${this._closeReason}` : `exited while "${tool}" was running`
        const step = this._nextStep?.()
        const next = step ? ` ${step}` : ''
        throw new McpConnectionError(`MCP server "${this.server}" ${what}.${next}${this.stderrNote()}`, this.server, { cause: error })
      }
      throw error
    }
  }

  /** What happened to a closed connection, as a verb phrase: `exited`, `closed its connection: <why>`. */
  describeStop(): string {
    return this._closeReason ? `closed its connection: ${this._closeReason}` : 'exited'
  }

  /**
   * Close the client and stop the server process: its stdin is closed, as MCP's stdio transport
   * asks; a server still running {@link CLOSE_GRACE_MS} later gets SIGTERM, and SIGKILL as long
   * again after that. (The SDK waits 2 s before each signal, so a `ptc run` whose server ignored
   * the end of its stdin took 2 s longer to end.) Never throws.
   */
  async close(): Promise<void> {
    this._closed = true
    this._closedAt ??= this._now()
    // ChildProcess.kill never signals a process that has ended, so no other process can be hit.
    const child = this._child
    const stop = (signal: NodeJS.Signals) => child?.exitCode === null && child.signalCode === null && child.kill(signal)
    const term = setTimeout(() => stop('SIGTERM'), CLOSE_GRACE_MS)
    const kill = setTimeout(() => stop('SIGKILL'), 2 * CLOSE_GRACE_MS)
    try {
      await this._client.close()
    } catch {
      // Already gone: nothing left to stop.
    } finally {
      clearTimeout(term)
      clearTimeout(kill)
    }
  }

  /** ` Last stderr: a | b` (its last 5 lines), or '' when the server wrote none. */
  stderrNote(): string {
    const tail = this._stderr.trim()
    return tail ? ` Last stderr: ${tail.split('\n').slice(-5).join(' | ')}` : ''
  }
}

/**
 * Whether `error` is the SDK's own timeout of a request (code -32001 with a numeric
 * `data.timeout`, equal to `timeoutMs` when given), not a server's error answer that happens to
 * use -32001.
 */
function timedOut(error: unknown, timeoutMs?: number): boolean {
  if (!(error instanceof McpError) || error.code !== ErrorCode.RequestTimeout) return false
  const timeout = (error.data as { timeout?: unknown } | undefined)?.timeout
  return timeoutMs === undefined ? typeof timeout === 'number' : timeout === timeoutMs
}

/** A zod validation error's issues on one line (`tools: expected array, …`); `undefined` for any other error (the SDK's zod is not ours, so by shape). */
function zodIssues(error: unknown): string | undefined {
  const issues = (error as { issues?: unknown } | null)?.issues
  if (!(error instanceof Error) || !Array.isArray(issues) || issues.length === 0) return undefined
  return (issues as { path?: unknown[]; message?: unknown }[]).map((issue) => `${issue.path?.join('.') || 'the result'}: ${String(issue.message)}`).join('; ')
}
