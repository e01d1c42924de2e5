/**
 * `ptc serve --http`: MCP over Streamable HTTP at `/mcp` (the SDK's
 * `StreamableHTTPServerTransport`, one transport and one session per `Mcp-Session-Id`).
 * Network exposure is fail-closed: the default bind is 127.0.0.1; any other bind needs a bearer
 * token, refused at start-up otherwise (before listening); a configured token is checked on every
 * request in constant time (401 otherwise); on a loopback bind the `Host` header must be loopback
 * too (DNS-rebinding defence, 403 otherwise), and so must an `Origin` header when one is sent (a
 * cross-site browser page, 403 otherwise).
 *
 * Sessions are bounded: one is opened (journal file, fiber) only once the SDK has accepted the
 * initialize request, so a refused request leaves nothing behind; at most `maxSessions` are open
 * (an initialize beyond that gets 503); a session with no request in flight for `sessionIdleMs` is
 * closed (its calls aborted, its background jobs killed, its GET stream ended) and later
 * requests for it get 404. A POST with a request whose id is that of a request of its session
 * still in flight (a cancelled one until it has stopped) gets 400 (-32600, naming the id) before
 * the SDK sees it (`in-flight-ids.ts`); a batch holding one is refused whole, with an error for
 * each of its requests, none of them run; its notifications (a cancel) are delivered all the same
 * (but a cancel of one of its own requests).
 */
import { AsyncLocalStorage } from 'node:async_hooks'
import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import type { Context } from 'cordis'
import { InFlightIds } from '../mcp/in-flight-ids.ts'
import { deliverAllButRequests, refusedBatch } from '../mcp/refused-batches.ts'
import { initializeRefusal, unreadableMessage } from './post-refusals.ts'
import { BodyTooLarge, declaresTooLarge, MAX_BODY_BYTES, readBody } from './request-body.ts'
import { bearerTokenMatches, isLoopbackHost, isLoopbackHostHeader, isLoopbackOrigin } from './bearer-auth.ts'
import { openSession, type McpSession, type SessionOptions } from './mcp-session.ts'
import { DEFAULT_HTTP_HOST, DEFAULT_HTTP_PORT, DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS } from './serve-defaults.ts'
import { ServeError } from './serve-errors.ts'

export { MAX_BODY_BYTES } from './request-body.ts'
export { DEFAULT_HTTP_HOST, DEFAULT_HTTP_PORT, DEFAULT_MAX_SESSIONS, DEFAULT_SESSION_IDLE_MS }

/** How long a request's headers and body may take to arrive, in ms (Node's `requestTimeout`; its default is 300,000). */
export const REQUEST_TIMEOUT_MS = 60_000

/** Where and how to listen. `port: 0` picks a free port (see `url` of the handle). */
export interface HttpServeOptions extends SessionOptions {
  host?: string
  port?: number
  /** Bearer token; required for a non-loopback `host`. */
  token?: string
  /** Close a session after this long with no request in flight, in ms (default 30 min). */
  sessionIdleMs?: number
  /** Sessions open at once; an initialize beyond that gets 503 (default 100). */
  maxSessions?: number
}

/** A listening server. */
export interface HttpServerHandle {
  /** The endpoint, e.g. `http://127.0.0.1:8765/mcp`. */
  readonly url: string
  /** Open sessions right now. */
  readonly sessions: number
  /** Close every session and stop listening. */
  close(): Promise<void>
}

/**
 * The exposure rules alone, with defaults applied: a non-loopback `host` needs a token; the port
 * is a whole number in 0–65535. An empty token counts as none.
 * @throws ServeError with a message that says what to pass instead.
 */
export function checkExposure(options: Pick<HttpServeOptions, 'host' | 'port' | 'token'>): { host: string; port: number; token: string | undefined } {
  const host = options.host ?? DEFAULT_HTTP_HOST
  const port = options.port ?? DEFAULT_HTTP_PORT
  const token = options.token === '' ? undefined : options.token
  if (!isLoopbackHost(host) && token === undefined) {
    throw new ServeError(
      `Refusing to listen on ${host}: a non-loopback bind exposes run_code to the network, so it needs a bearer token. ` +
        'Pass --token TOKEN or set PTC_SERVE_TOKEN (clients then send "Authorization: Bearer TOKEN"), or bind to 127.0.0.1.',
      { host },
    )
  }
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new ServeError(`--port takes a whole number from 0 to 65535, got ${port}.`, { port })
  return { host, port, token }
}

/**
 * Check the exposure rules, then listen.
 * @throws ServeError when `host` is not loopback and there is no token (before listening), or the
 *   port is not a whole number in 0–65535; the `listen` error (e.g. EADDRINUSE) otherwise.
 */
export async function serveHttp(ctx: Context, options: HttpServeOptions): Promise<HttpServerHandle> {
  const { host, port, token } = checkExposure(options)
  const loopback = isLoopbackHost(host)
  const idleMs = options.sessionIdleMs ?? DEFAULT_SESSION_IDLE_MS
  const maxSessions = options.maxSessions ?? DEFAULT_MAX_SESSIONS
  const { sessionIdleMs: _idle, maxSessions: _max, host: _host, port: _port, token: _token, ...sessionOptions } = options

  interface Entry {
    transport: StreamableHTTPServerTransport
    session: McpSession
    /** POST requests of this session being answered now (a standalone GET stream does not count). */
    inFlight: number
    /** The ids of this session's JSON-RPC requests not answered yet. */
    requestIds: InFlightIds
    idle?: NodeJS.Timeout
  }
  const sessions = new Map<string, Entry>()
  // Initialize requests accepted for a slot whose session is not open yet.
  let opening = 0
  let stopped = false

  const closeEntry = (id: string, entry: Entry) => {
    if (sessions.get(id) === entry) sessions.delete(id)
    clearTimeout(entry.idle)
    // The session first (its aborted calls answered on their open responses), then the transport.
    return entry.session.close().then(() => entry.transport.close().catch(() => {}))
  }
  const armIdle = (id: string, entry: Entry) => {
    clearTimeout(entry.idle)
    if (entry.inFlight === 0 && sessions.get(id) === entry) entry.idle = setTimeout(() => void closeEntry(id, entry), idleMs).unref()
  }
  /** Count `res` as in flight for `id` until it is finished or its connection drops. */
  const track = (id: string, res: ServerResponse) => {
    const entry = sessions.get(id)
    if (!entry) return
    entry.inFlight++
    clearTimeout(entry.idle)
    res.once('close', () => {
      entry.inFlight--
      armIdle(id, entry)
    })
  }

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname
    if (path !== '/mcp') return reply(res, 404, `Not found: the MCP endpoint is /mcp.`)
    if (token !== undefined && !bearerTokenMatches(req.headers.authorization, token)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="ptc"')
      return reply(res, 401, 'Unauthorized: send "Authorization: Bearer <token>" with the token ptc serve was started with.', -32000, true)
    }
    if (loopback && !isLoopbackHostHeader(req.headers.host)) return reply(res, 403, `Forbidden: Host "${req.headers.host}" is not a loopback name.`)
    const origin = req.headers.origin
    if (loopback && origin !== undefined && !isLoopbackOrigin(origin)) return reply(res, 403, `Forbidden: Origin "${origin}" is not a loopback origin.`)
    const sessionId = req.headers['mcp-session-id']
    const known = typeof sessionId === 'string' ? sessions.get(sessionId) : undefined
    if (req.method === 'POST') {
      let body: unknown
      try {
        body = JSON.parse(await readBody(req))
      } catch (error) {
        if (error instanceof BodyTooLarge) return replyTooLarge(res)
        return reply(res, 400, 'Parse error: the body is not JSON.', -32700)
      }
      // A message that is no JSON-RPC message gets stdio's answer (-32600, its id when readable),
      // not the SDK's -32700; a batch goes on to the SDK, which serves those, but not an empty one.
      const unreadable = Array.isArray(body) ? (body.length === 0 ? { id: null, code: -32600, message: 'Invalid Request: an empty batch' } : undefined) : unreadableMessage(body)
      if (unreadable !== undefined) return reply(res, 400, unreadable.message, unreadable.code, false, unreadable.id)
      if (known) {
        const duplicate = known.requestIds.claim(body)
        if (duplicate !== undefined && Array.isArray(body)) deliverAllButRequests(known.transport, body)
        if (duplicate !== undefined) return Array.isArray(body) ? writeJson(res, 400, refusedBatch(body, duplicate)) : reply(res, 400, duplicate.message, duplicate.code, false, duplicate.id)
        track(sessionId as string, res)
        let refused = true
        try {
          await connections.run(droppedSignal(res), () => known.transport.handleRequest(req, res, body))
          refused = res.statusCode >= 400
        } finally {
          // The SDK's transport refused the POST (406, 415, 400…) or failed before delivering it: none of its ids is in flight.
          if (refused) known.requestIds.release(body)
        }
        return
      }
      if (sessionId !== undefined) return reply(res, 404, 'Session not found: start a new session with an initialize request.')
      const refusal = initializeRefusal(body)
      if (refusal !== undefined) return reply(res, 400, refusal.message, refusal.code, false, refusal.id)
      if (stopped) return reply(res, 503, 'The server is shutting down.')
      if (sessions.size + opening >= maxSessions) {
        return reply(res, 503, `Service unavailable: ${maxSessions} sessions are open (the most this server allows); close one (HTTP DELETE) or try again later.`)
      }
      // The session (journal file, fiber) is opened only once the SDK has accepted the initialize
      // request (Accept, Content-Type, JSON-RPC shape): a refused request leaves nothing behind.
      opening++
      let opened = false
      const requestIds = new InFlightIds()
      // No eventStore: requestEndedUnanswered (in-flight-ids.ts) ends a cancelled request's stream, which a resumable client would wait on.
      const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        onsessioninitialized: async (id) => {
          opened = true
          opening--
          let session: McpSession
          try {
            session = await openSession(ctx, { ...sessionOptions, connectionSignal: () => connections.getStore() }, id)
          } catch (error) {
            void transport.close().catch(() => {})
            throw error
          }
          const entry: Entry = { transport, session, inFlight: 0, requestIds }
          sessions.set(id, entry)
          transport.onclose = () => void closeEntry(id, entry)
          await session.server.connect(transport)
          if (stopped) void closeEntry(id, entry)
          else track(id, res)
        },
      })
      requestIds.watchAnswers(transport)
      try {
        return await transport.handleRequest(req, res, body)
      } finally {
        if (!opened) {
          opening--
          await transport.close().catch(() => {})
        }
      }
    }
    if (req.method === 'GET' || req.method === 'DELETE') {
      if (!known) return reply(res, sessionId === undefined ? 400 : 404, sessionId === undefined ? 'Bad request: missing Mcp-Session-Id.' : 'Session not found.')
      // A GET stream only carries server notifications: holding one open is not activity.
      return known.transport.handleRequest(req, res)
    }
    res.setHeader('Allow', 'GET, POST, DELETE')
    return reply(res, 405, `Method ${req.method} is not allowed.`)
  }

  // A request (headers and body) must arrive within a minute (checked every 5 s), not Node's
  // default five: a body sent a byte every few seconds held its connection 324 s (a hostile trial).
  const http = createServer({ requestTimeout: REQUEST_TIMEOUT_MS, connectionsCheckingInterval: 5_000 }, (req, res) => {
    handle(req, res).catch((error) => {
      process.stderr.write(`ptc serve: request failed: ${(error as Error)?.stack ?? error}\n`)
      if (!res.headersSent) reply(res, 500, 'Internal error.', -32603)
      else res.end()
    })
  })
  // `Expect: 100-continue` with a body over the limit is refused before the body is invited.
  http.on('checkContinue', (req, res) => {
    if (declaresTooLarge(req)) return replyTooLarge(res)
    res.writeContinue()
    http.emit('request', req, res)
  })
  await new Promise<void>((resolve, reject) => {
    http.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.code === 'EADDRINUSE' || error.code === 'EACCES' || error.code === 'EADDRNOTAVAIL'
          ? new ServeError(`Cannot listen on ${host}:${port}: ${error.code === 'EADDRINUSE' ? 'the port is already in use' : error.code === 'EACCES' ? 'permission denied' : 'the address is not available here'}. Choose another --port (0 picks a free one) or --host.`)
          : error,
      ),
    )
    http.listen(port, host, () => {
      http.off('error', reject)
      resolve()
    })
  })
  const address = http.address() as AddressInfo
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address
  let closing: Promise<void> | undefined
  return {
    url: `http://${shown}:${address.port}/mcp`,
    get sessions() {
      return sessions.size
    },
    close: () =>
      (closing ??= (async () => {
        stopped = true
        await Promise.all([...sessions].map(([id, entry]) => closeEntry(id, entry)))
        await new Promise<void>((resolve) => {
          http.close(() => resolve())
          http.closeAllConnections()
        })
      })()),
  }
}

/** The connection of the POST being handled, for the session's calls (`SessionOptions.connectionSignal`). */
const connections = new AsyncLocalStorage<AbortSignal>()

/** Aborted when `res`'s connection closes before the answer was written (the client went away). */
function droppedSignal(res: ServerResponse): AbortSignal {
  const controller = new AbortController()
  res.once('close', () => {
    if (!res.writableFinished) controller.abort(new Error('the client closed the connection before the answer'))
  })
  return controller.signal
}

/** The 413 for a body over {@link MAX_BODY_BYTES}; the connection closes after it (the body is not read). */
function replyTooLarge(res: ServerResponse): void {
  reply(res, 413, `The request body is over ${MAX_BODY_BYTES} bytes.`, -32000, true)
}

/**
 * A JSON-RPC-shaped error body, so MCP clients can show the message. `close`: the connection is
 * closed after it (a 401 or 413, whose sender's body is not read: its socket was held until the
 * server's request timeout). `id`: the request's, when it could be read.
 */
function reply(res: ServerResponse, status: number, message: string, code = -32000, close = false, id: string | number | null = null): void {
  writeJson(res, status, { jsonrpc: '2.0', error: { code, message }, id }, close)
}

/** `body` as JSON with `status`; `close`: see {@link reply}. */
function writeJson(res: ServerResponse, status: number, body: unknown, close = false): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...(close && { Connection: 'close' }) })
  res.end(JSON.stringify(body))
}
