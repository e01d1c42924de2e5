/**
 * `ptc serve` as the CLI runs it: flags → {@link ServeOptions}, a host (whose journal is replaced
 * by one journal per session), the server, and a clean stop on SIGINT/SIGTERM or, for stdio, when
 * the client goes away. Start-up problems are reported on stderr with exit code 2.
 */
import { join } from 'node:path'
import { createHost, type HostOptions } from '../host/create-host.ts'
import { McpConfigError } from '../mcp/mcp-config.ts'
import { McpConnectionError } from '../mcp/mcp-connection.ts'
import { checkExposure } from './http-server.ts'
import { DEFAULT_HTTP_HOST, DEFAULT_MAX_CONCURRENT_RUNS } from './serve-defaults.ts'
import { serve, type ServeOptions } from './serve.ts'
import { ServeError } from './serve-errors.ts'

/** The `serve` flags as `util.parseArgs` gives them. */
export interface ServeFlags {
  stdio?: boolean
  http?: boolean
  host?: string
  port?: string
  token?: string
  'expose-tools'?: boolean
  'max-concurrent-runs'?: string
  'max-running-per-session'?: string
  'max-queued-runs'?: string
  'max-runs-per-session'?: string
  'session-idle-ms'?: string
  'max-sessions'?: string
}

/**
 * Turn flags into serve options. The token comes from `--token`, else `PTC_SERVE_TOKEN`.
 * @throws ServeError on a missing or doubled transport flag or a malformed number.
 */
export function serveOptionsFrom(flags: ServeFlags, workspace: string, env: NodeJS.ProcessEnv = process.env): ServeOptions {
  if (flags.stdio === flags.http || (!flags.stdio && !flags.http)) throw new ServeError('ptc serve needs exactly one of --stdio or --http.')
  // Decimal digits only (Number() would also take " 16", "0x10" and "1e3"), from min to max.
  const whole = (text: string | undefined, flag: string, min: number, max?: number): number | undefined => {
    if (text === undefined) return undefined
    const value = /^[+-]?\d+$/.test(text) ? Number(text) : Number.NaN
    if (!Number.isSafeInteger(value) || value < min || value > (max ?? Number.MAX_SAFE_INTEGER)) {
      throw new ServeError(`--${flag} takes a whole number ${max === undefined ? `≥ ${min}` : `from ${min} to ${max}`}, got "${text}".`)
    }
    return value
  }
  if (flags.stdio && (flags.host !== undefined || flags.port !== undefined || flags.token !== undefined || flags['session-idle-ms'] !== undefined || flags['max-sessions'] !== undefined)) {
    throw new ServeError('--host, --port, --token, --session-idle-ms and --max-sessions apply to --http only.')
  }
  const token = flags.token ?? env.PTC_SERVE_TOKEN
  const port = whole(flags.port, 'port', 0, 65_535)
  const maxConcurrentRuns = whole(flags['max-concurrent-runs'], 'max-concurrent-runs', 1)
  const maxRunningPerSession = whole(flags['max-running-per-session'], 'max-running-per-session', 1)
  if (maxRunningPerSession !== undefined && maxRunningPerSession > (maxConcurrentRuns ?? DEFAULT_MAX_CONCURRENT_RUNS)) {
    throw new ServeError(`--max-running-per-session (${maxRunningPerSession}) cannot exceed --max-concurrent-runs (${maxConcurrentRuns ?? DEFAULT_MAX_CONCURRENT_RUNS}).`)
  }
  const maxQueuedRuns = whole(flags['max-queued-runs'], 'max-queued-runs', 1)
  const maxRunsPerSession = whole(flags['max-runs-per-session'], 'max-runs-per-session', 1)
  const sessionIdleMs = whole(flags['session-idle-ms'], 'session-idle-ms', 1)
  const maxSessions = whole(flags['max-sessions'], 'max-sessions', 1)
  return {
    transport: flags.stdio ? 'stdio' : 'http',
    exposeTools: flags['expose-tools'] === true,
    journalDir: join(workspace, '.ptc', 'journal'),
    ...(flags.http && { host: flags.host ?? DEFAULT_HTTP_HOST }),
    ...(port !== undefined && { port }),
    ...(flags.http && token !== undefined && token !== '' && { token }),
    ...(maxConcurrentRuns !== undefined && { maxConcurrentRuns }),
    ...(maxRunningPerSession !== undefined && { maxRunningPerSession }),
    ...(maxQueuedRuns !== undefined && { maxQueuedRuns }),
    ...(maxRunsPerSession !== undefined && { maxRunsPerSession }),
    ...(sessionIdleMs !== undefined && { sessionIdleMs }),
    ...(maxSessions !== undefined && { maxSessions }),
  }
}

/** True for errors `ptc serve` (and `--mcp-config` anywhere) reports as start-up problems, exit 2. */
export function isStartupError(error: unknown): error is Error {
  return ServeError.isInstance(error) || McpConfigError.isInstance(error) || McpConnectionError.isInstance(error)
}

/**
 * Run `ptc serve` until stopped. Resolves to the exit code: 0 after a clean stop, 1 when the stdio
 * session ended on a failure of its own (said on stderr).
 * @throws ServeError, McpConfigError, McpConnectionError on start-up problems (see {@link isStartupError}).
 */
export async function serveCommand(flags: ServeFlags, hostOptions: HostOptions): Promise<number> {
  const options = serveOptionsFrom(flags, hostOptions.workspace ?? '.')
  // The HTTP exposure rules are checked before any tool or MCP server starts.
  if (options.transport === 'http') checkExposure(options)
  const host = await createHost({ ...hostOptions, journal: false })
  let handle: Awaited<ReturnType<typeof serve>>
  try {
    // One journal per session in the host's state folder, pruned to the host's retention as each opens.
    handle = await serve(host.ctx, { ...options, journalDir: host.journalDir ?? false, journalRetention: host.journalRetention })
  } catch (error) {
    await host.dispose()
    throw error
  }
  if (handle.url) process.stderr.write(`ptc serve: listening on ${handle.url}${options.token ? ' (bearer token required)' : ''}\n`)
  const stopped = new Promise<undefined>((resolve) => {
    process.once('SIGINT', () => resolve(undefined))
    process.once('SIGTERM', () => resolve(undefined))
  })
  const failure = await Promise.race([stopped, handle.closed])
  await handle.close()
  await host.dispose()
  // Anything still holding the event loop (a stuck child process) must not keep a stopped server alive.
  setTimeout(() => process.exit(failure === undefined ? 0 : 1), 2_000).unref()
  return failure === undefined ? 0 : 1
}
