/**
 * An imported MCP server that is started again when it stops (SPEC S1.4): it holds the current
 * {@link McpConnection} (one server process), and a call that finds it crashed, exited or dropped
 * starts a new one first, under {@link RestartPolicy} (backoff, a limit per minute). Restarts
 * happen only on a call, never in the background, so a server nobody calls stays stopped.
 *
 * - A call in flight when the server stops fails with the connection's message (which names the
 *   server, the tool and what happened, with the end of stderr) plus what happens next: restarted
 *   on the next call, or not before a given time.
 * - A call that finds the server stopped waits for the backoff and the start (both bounded: the
 *   backoff by the policy, the start by the start-up budget), sharing one restart with any other
 *   call waiting; if the start fails, every waiting call fails with why.
 * - Past the limit, a call fails at once saying how many restarts the last minute saw and when
 *   the next call may restart it.
 *
 * The tool list is read once, at the first start; a restarted server's tools are called by the
 * names listed then.
 */
import { setTimeout } from 'node:timers/promises'
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { raceAbort } from '../pipeline/race-abort.ts'
import { McpConnection, McpConnectionError } from './mcp-connection.ts'
import { DEFAULT_MCP_TIMEOUT_MS, type McpServerConfig } from './mcp-config.ts'
import { decideRestart, describeRetry, DEFAULT_RESTART_POLICY, type RestartPolicy } from './restart-policy.ts'

/** The clock a supervised connection reads and waits by; tests pass their own. */
export interface RestartClock {
  /** Epoch ms. */
  now(): number
  /** Resolve after `ms`; reject when `signal` aborts first. */
  sleep(ms: number, signal: AbortSignal): Promise<void>
}

const REAL_CLOCK: RestartClock = { now: () => Date.now(), sleep: (ms, signal) => setTimeout(ms, undefined, { signal }) }

/** Options of {@link SupervisedConnection.start}. */
export interface SupervisedConnectionOptions {
  /** Start-up budget of each start (handshake, and the first tool listing), in ms; see `McpConnection.start`. */
  startTimeoutMs?: number
  /** Default {@link DEFAULT_RESTART_POLICY}. */
  restartPolicy?: RestartPolicy
  clock?: RestartClock
}

/** A server started by {@link SupervisedConnection.start}; `close()` stops it for good. */
export class SupervisedConnection {
  readonly server: string
  readonly config: McpServerConfig
  private current: McpConnection
  private restarting: Promise<McpConnection> | undefined
  /** When each restart was attempted (epoch ms), oldest first; only the last window's are kept. */
  private readonly restarts: number[] = []
  /** Why the last restart failed, while the server is down because of it. */
  private failedStart: McpConnectionError | undefined
  private failedAt = 0
  private closed = false
  /** Aborted by `close()`: ends a restart's backoff. */
  private readonly closing = new AbortController()
  private readonly options: SupervisedConnectionOptions
  private readonly policy: RestartPolicy
  private readonly clock: RestartClock

  private constructor(first: McpConnection, options: SupervisedConnectionOptions) {
    this.server = first.server
    this.config = first.config
    this.options = options
    this.policy = options.restartPolicy ?? DEFAULT_RESTART_POLICY
    this.clock = options.clock ?? REAL_CLOCK
    this.current = this.adopt(first)
  }

  /** Make `connection` the current one; its failed calls tell what happens next. */
  private adopt(connection: McpConnection): McpConnection {
    connection._nextStep = () => (this.closed ? '' : this.nextStep(connection._closedAt ?? this.clock.now()))
    return connection
  }

  /**
   * Start the server for the first time (no restart rule applies to this one).
   * @throws McpConnectionError when it cannot start (see `McpConnection.start`).
   */
  static async start(server: string, config: McpServerConfig, options: SupervisedConnectionOptions = {}): Promise<SupervisedConnection> {
    return new SupervisedConnection(await McpConnection.start(server, config, startOptions(options)), options)
  }

  /** Per-call budget in ms (config `timeoutMs`, default 60,000). */
  get timeoutMs(): number {
    return this.config.timeoutMs ?? DEFAULT_MCP_TIMEOUT_MS
  }

  /**
   * Every tool the server lists; see `McpConnection.listTools`.
   * @throws McpConnectionError when the listing fails.
   */
  listTools(): Promise<unknown[]> {
    return this.current.listTools()
  }

  /**
   * Call one tool, restarting the server first when it has stopped (see the file's comment).
   * @throws McpConnectionError when the server stops during the call, cannot be restarted, or is
   *   past its restart limit; the caller's `AbortSignal` reason when `signal` aborts.
   */
  async callTool(tool: string, args: unknown, signal: AbortSignal): Promise<CallToolResult> {
    const connection = await this.running(tool, signal)
    return connection.callTool(tool, args, signal)
  }

  /**
   * Stop the server for good. A restart under way stops: in its backoff at once, in its start
   * once that settles (the process it started is then stopped), and `close()` waits for it, so no
   * server process outlives it. Never throws.
   */
  async close(): Promise<void> {
    this.closed = true
    this.closing.abort()
    await this.restarting?.catch(() => {})
    await this.current.close()
  }

  /** The running connection: the current one, or a restarted one. */
  private async running(tool: string, signal: AbortSignal): Promise<McpConnection> {
    if (!this.current._closed || this.closed) return this.current
    if (!this.restarting) {
      const stoppedAt = this.failedStart ? this.failedAt : (this.current._closedAt ?? this.clock.now())
      const decision = decideRestart({ policy: this.policy, restarts: this.restarts, stoppedAt, now: this.clock.now() })
      if (decision.kind === 'refuse') {
        const last = this.failedStart ? `Its last restart failed: ${this.failedStart.message.trimEnd()}` : `Last time it ${this.current.describeStop()}.${this.current.stderrNote()}`
        throw new McpConnectionError(`MCP server "${this.server}" is not running, so "${tool}" could not be called. ${this.limitReached(decision)} ${last}`, this.server)
      }
      // A backoff as long as a call's whole budget: the call would only time out waiting for it.
      if (decision.waitMs >= this.timeoutMs) {
        const now = this.clock.now()
        const at = describeRetry(now + decision.waitMs, now)
        throw new McpConnectionError(`MCP server "${this.server}" is not running (it ${this.current.describeStop()}), and its restart waits a backoff of ${Math.ceil(decision.waitMs / 1000)} s, longer than a call's budget of ${this.timeoutMs} ms (timeoutMs), so "${tool}" was not called. The first call after ${at} restarts it.`, this.server)
      }
      this.restarting = this.restart(decision.waitMs).finally(() => {
        this.restarting = undefined
      })
    }
    return raceAbort(this.restarting, signal, () => {
      throw signal.reason
    })
  }

  /** Wait `waitMs`, then start a new server process; it becomes the current one. */
  private async restart(waitMs: number): Promise<McpConnection> {
    const previous = this.current.describeStop()
    if (waitMs > 0) await this.clock.sleep(waitMs, this.closing.signal).catch(() => {})
    if (this.closed) throw new McpConnectionError(`MCP server "${this.server}" is not restarted: ptc-runner is closing.`, this.server)
    const now = this.clock.now()
    this.restarts.push(now)
    while (this.restarts.length > 0 && this.restarts[0]! <= now - this.policy.windowMs) this.restarts.shift()
    let next: McpConnection
    try {
      next = await McpConnection.start(this.server, this.config, startOptions(this.options))
    } catch (error) {
      this.failedAt = this.clock.now()
      this.failedStart = McpConnectionError.isInstance(error) ? error : new McpConnectionError(String(error), this.server)
      throw new McpConnectionError(`MCP server "${this.server}" had stopped (it ${previous}) and could not be started again: ${this.failedStart.message.trimEnd()} ${this.nextStep(this.failedAt)}`, this.server, { cause: error })
    }
    this.failedStart = undefined
    if (this.closed) await next.close()
    else this.current = this.adopt(next)
    return next
  }

  /** What the next call will do about a server that stopped at `stoppedAt`, as a sentence. */
  private nextStep(stoppedAt: number): string {
    const decision = decideRestart({ policy: this.policy, restarts: this.restarts, stoppedAt, now: this.clock.now() })
    if (decision.kind === 'refuse') return this.limitReached(decision)
    return decision.waitMs > 0 ? `The next call restarts it (after a backoff of ${Math.ceil(decision.waitMs / 1000)} s).` : 'The next call restarts it.'
  }

  /** The restart limit as a sentence: how many restarts, and when the next may be. */
  private limitReached(decision: { retryAt: number; recent: number }): string {
    return `It was restarted ${decision.recent} times in the last ${this.windowText()}, the most ptc-runner allows; the first call after ${describeRetry(decision.retryAt, this.clock.now())} restarts it.`
  }

  private windowText(): string {
    return this.policy.windowMs === 60_000 ? 'minute' : `${this.policy.windowMs / 1000} s`
  }
}

function startOptions(options: SupervisedConnectionOptions): { startTimeoutMs?: number; now: () => number } {
  const clock = options.clock ?? REAL_CLOCK
  const now = () => clock.now()
  return options.startTimeoutMs !== undefined ? { startTimeoutMs: options.startTimeoutMs, now } : { now }
}
