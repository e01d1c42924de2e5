/**
 * Service mode (SPEC S9.4): expose a host's registry to MCP clients over stdio or Streamable HTTP.
 * The server is a plugin in the host's fiber tree, so disposing the host also closes it; its
 * sessions share one {@link RunLimiter} for `run_code` executions.
 */
import '../node-version.ts'
import type { Context } from 'cordis'
import { serveHttp, type HttpServeOptions } from './http-server.ts'
import type { SessionOptions } from './mcp-session.ts'
import { createRunLimiter, DEFAULT_MAX_CONCURRENT_RUNS, type RunLimiterLimits } from './run-limiter.ts'
import { serveStdio } from './stdio-server.ts'

/** Options of {@link serve}. */
export interface ServeOptions extends Omit<SessionOptions, 'limiter' | 'exposeTools' | 'journalDir'>, Pick<HttpServeOptions, 'host' | 'port' | 'token' | 'sessionIdleMs' | 'maxSessions'> {
  transport: 'stdio' | 'http'
  /** Expose every registered tool, not just run_code and the job tools (default false). */
  exposeTools?: boolean
  /**
   * Folder of the per-session journals (`<stamp>-mcp-<session id>.jsonl`); `false` or absent for
   * none (`ptc serve` passes the host's `journalDir`).
   */
  journalDir?: string | false
  /** `run_code` executions that may run at once across sessions; more wait (default 4). */
  maxConcurrentRuns?: number
  /**
   * `run_code` executions one session may have running at once; its further calls wait while
   * other sessions' calls are admitted round-robin. Default: half of `maxConcurrentRuns` (at least
   * 1) over HTTP, so no session holds every slot; all of them over stdio (one session).
   */
  maxRunningPerSession?: number
  /** `run_code` calls that may wait for a slot across sessions; more are refused at once (default 64). */
  maxQueuedRuns?: number
  /** `run_code` calls one session may have running or waiting; more are refused at once (default: `maxConcurrentRuns`, at least 4). */
  maxRunsPerSession?: number
}

/** A running server. */
export interface ServeHandle {
  /** The HTTP endpoint (`http` only). */
  readonly url?: string
  /**
   * Settles when a stdio session ends (never on its own for HTTP, which serves until `close()`),
   * with why when it ended on a failure of its own, else undefined.
   */
  readonly closed: Promise<string | undefined>
  close(): Promise<void>
}

/**
 * The run limits of a server (S9.4): the options' own, and over stdio, where one session is all
 * there is and none can be starved, a running share of every slot unless one is given.
 */
export function serveRunLimits(options: Pick<ServeOptions, 'transport' | 'maxConcurrentRuns' | 'maxRunningPerSession' | 'maxQueuedRuns' | 'maxRunsPerSession'>): RunLimiterLimits {
  const { transport, maxConcurrentRuns, maxRunningPerSession, maxQueuedRuns, maxRunsPerSession } = options
  const runningShare = maxRunningPerSession ?? (transport === 'stdio' ? (maxConcurrentRuns ?? DEFAULT_MAX_CONCURRENT_RUNS) : undefined)
  return {
    ...(maxConcurrentRuns !== undefined && { maxConcurrent: maxConcurrentRuns }),
    ...(runningShare !== undefined && { maxRunningPerSession: runningShare }),
    ...(maxQueuedRuns !== undefined && { maxQueued: maxQueuedRuns }),
    ...(maxRunsPerSession !== undefined && { maxPerSession: maxRunsPerSession }),
  }
}

/**
 * Start serving on `ctx` (any host context that has the `tools`, `ptc` and `approval` services).
 * @throws ServeError (before listening) when the HTTP exposure rules refuse the bind; RangeError
 *   when `maxConcurrentRuns`, `maxRunningPerSession`, `maxQueuedRuns` or `maxRunsPerSession` is not a
 *   positive whole number, or `maxRunningPerSession` exceeds `maxConcurrentRuns`.
 */
export async function serve(ctx: Context, options: ServeOptions): Promise<ServeHandle> {
  const { transport, maxConcurrentRuns, maxRunningPerSession, maxQueuedRuns, maxRunsPerSession, host, port, token, sessionIdleMs, maxSessions, ...session } = options
  const limiter = createRunLimiter(serveRunLimits(options))
  const sessionOptions: SessionOptions = { ...session, exposeTools: session.exposeTools ?? false, journalDir: session.journalDir ?? false, limiter }
  // Checkers and the isolate worker start now, so the first sessions' runs find them warm; a
  // failure to start surfaces in the first run instead.
  ctx.ptc.prewarm().catch(() => {})
  let started: ServeHandle | undefined
  const fiber = ctx.plugin({
    name: `mcp-server:${transport}`,
    inject: ['tools', 'ptc', 'approval'],
    apply: async (server: Context) => {
      if (transport === 'stdio') {
        started = await serveStdio(server, sessionOptions)
      } else {
        const http = await serveHttp(server, { ...sessionOptions, ...(host !== undefined && { host }), ...(port !== undefined && { port }), ...(token !== undefined && { token }), ...(sessionIdleMs !== undefined && { sessionIdleMs }), ...(maxSessions !== undefined && { maxSessions }) })
        started = { url: http.url, closed: new Promise<undefined>(() => {}), close: () => http.close() }
      }
      server.effect(() => () => started?.close(), 'mcp server')
    },
  })
  await fiber
  const handle = started!
  // The server closes first (each session's calls answered and journaled, S11.1), then the fiber:
  // disposing the fiber alone would dispose the sessions' fibers (their journals) before them.
  return {
    ...(handle.url !== undefined && { url: handle.url }),
    closed: handle.closed,
    close: async () => {
      await handle.close()
      await fiber.dispose()
    },
  }
}
