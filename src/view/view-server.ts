/**
 * `ptc view`'s server (SPEC S11.6): a `node:http` server that serves the single-page app and,
 * under `/api/`, the workspace's journals as raw records. Routes (GET/HEAD only):
 *
 * | path | answer |
 * |---|---|
 * | `/` | the page |
 * | `/assets/app.js`, `/assets/app.css` | the app (see `client-assets.ts`) |
 * | `/plugins/<n>.js` | viewer plugin n |
 * | `/api/config` | `{plugins: [url…], workspace}` |
 * | `/api/sessions?page=N` | a {@link SessionPage}, newest first |
 * | `/api/sessions/<id>/page?offset=B` | a {@link RecordPage}: complete records from byte B |
 * | `/api/sessions/<id>/follow?offset=B` | server-sent events: the same, then live |
 *
 * Safe by construction: every response carries a strict Content-Security-Policy (scripts and
 * styles from this origin only, no inline code, Trusted Types enforced so no HTML string sink can
 * be used), `nosniff` and `no-referrer`; records are sent as JSON and rendered as text by the app;
 * only journal files of `<workspace>/.ptc/journal/` are opened (see `journal-folder.ts`). Exposure
 * follows `ptc serve`: loopback by default; another host needs a token, which every `/api/`
 * request must carry as `Authorization: Bearer`; on a loopback bind the Host header must be
 * loopback too (DNS rebinding).
 */
import '../node-version.ts'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { bearerTokenMatches, isLoopbackHost, isLoopbackHostHeader, isLoopbackOrigin } from '../server/bearer-auth.ts'
import { loadClientAssets, type ClientAssets } from './client-assets.ts'
import { followJournal } from './follow-journal.ts'
import { JournalFolder } from './journal-folder.ts'
import { readRecords } from './read-records.ts'
import { SessionSummaries } from './session-summaries.ts'
import { DEFAULT_VIEW_HOST, DEFAULT_VIEW_PORT } from './view-defaults.ts'
import { ViewError } from './view-error.ts'

export { DEFAULT_VIEW_HOST, DEFAULT_VIEW_PORT }

/** Options of {@link startViewer}. */
export interface ViewerOptions {
  /** The workspace whose `.ptc/journal/` is shown (default: the cwd). */
  workspace?: string
  /** Bind address (default 127.0.0.1). Anything but loopback needs `token`. */
  host?: string
  /** Port (default 8766); 0 picks a free one (read `url`). */
  port?: number
  /** Bearer token every `/api/` request must carry; an empty string counts as none. */
  token?: string
  /** Viewer plugins: paths of ES modules whose default export gets the viewer API. */
  plugins?: readonly string[]
}

/** A listening viewer. */
export interface ViewerHandle {
  /** The page's URL, e.g. `http://127.0.0.1:8766/`. */
  readonly url: string
  /** Stop listening and end every open stream. */
  close(): Promise<void>
}

/** Content-Security-Policy of every response. */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ')

/**
 * Check the exposure rules, build the app, then listen.
 * @throws ViewError `view-exposure` for a non-loopback host without a token or a bad port,
 *   `view-not-found` when the workspace is not a directory, `view-client-build` when a plugin
 *   does not build; the `listen` error (e.g. EADDRINUSE) otherwise.
 */
export async function startViewer(options: ViewerOptions = {}): Promise<ViewerHandle> {
  const host = options.host ?? DEFAULT_VIEW_HOST
  const port = options.port ?? DEFAULT_VIEW_PORT
  const token = options.token === '' ? undefined : options.token
  const loopback = isLoopbackHost(host)
  if (!loopback && token === undefined) {
    throw new ViewError('view-exposure', `Refusing to listen on ${host}: a non-loopback bind shows the journals to the network, so it needs a token. Pass --token TOKEN (open the page as URL#token=TOKEN), or bind to 127.0.0.1.`, { host })
  }
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new ViewError('view-exposure', `--port takes a whole number from 0 to 65535, got ${port}.`, { port })
  const folder = new JournalFolder(options.workspace ?? '.')
  const summaries = new SessionSummaries(folder)
  const assets = await loadClientAssets(options.plugins ?? [])

  const server = createServer((req, res) => {
    try {
      route(req, res)
    } catch (error) {
      if (ViewError.hasCode(error, 'view-not-found')) return send(res, 404, { error: error.message })
      if (ViewError.hasCode(error, 'view-bad-request')) return send(res, 400, { error: error.message })
      if (ViewError.hasCode(error, 'view-refused')) return send(res, 403, { error: error.message })
      process.stderr.write(`ptc view: request failed: ${(error as Error)?.stack ?? error}\n`)
      if (!res.headersSent) send(res, 500, { error: 'Internal error; see the viewer\'s stderr.' })
      else res.end()
    }
  })
  const route = (req: IncomingMessage, res: ServerResponse) => {
    res.setHeader('Content-Security-Policy', CONTENT_SECURITY_POLICY)
    res.setHeader('X-Content-Type-Options', 'nosniff')
    res.setHeader('Referrer-Policy', 'no-referrer')
    res.setHeader('Cross-Origin-Resource-Policy', 'same-origin')
    if (loopback && !isLoopbackHostHeader(req.headers.host)) return send(res, 403, { error: `Forbidden: Host "${String(req.headers.host)}" is not a loopback name.` })
    // As `ptc serve --http` does: a page of another site (or a sandboxed one, `null`) is refused
    // even though it could not read the answer (a trial: 200 for `Origin: http://evil.com`).
    const origin = req.headers.origin
    if (loopback && origin !== undefined && !isLoopbackOrigin(origin)) return send(res, 403, { error: `Forbidden: Origin "${origin}" is not a loopback origin.` })
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD')
      return send(res, 405, { error: `Method ${req.method} is not allowed; the viewer is read-only.` })
    }
    const url = new URL(req.url ?? '/', 'http://viewer.invalid')
    // Split the raw path before decoding, so an encoded slash stays inside its segment.
    const segments = url.pathname.split('/').slice(1)
    if (segments[0] !== 'api') return serveAsset(res, assets, url.pathname)
    if (token !== undefined && !bearerTokenMatches(req.headers.authorization, token)) {
      res.setHeader('WWW-Authenticate', 'Bearer realm="ptc view"')
      return send(res, 401, { error: 'Unauthorized: open the page as URL#token=TOKEN with the token ptc view was started with.' })
    }
    if (segments.length === 2 && segments[1] === 'config') {
      return send(res, 200, { plugins: assets.plugins.map((_, index) => `/plugins/${index}.js`), workspace: folder.workspace })
    }
    if (segments.length === 2 && segments[1] === 'sessions') return send(res, 200, summaries.page(Number(url.searchParams.get('page') ?? 1)))
    if (segments.length === 4 && segments[1] === 'sessions' && (segments[3] === 'page' || segments[3] === 'follow')) {
      const offset = offsetParam(url.searchParams.get('offset'))
      const journal = folder.open(decodeSegment(segments[2]!))
      if (segments[3] === 'follow') return followJournal(journal, offset, res)
      try {
        const page = readRecords(journal.fd, offset)
        return send(res, 200, { ...page, size: journal.size })
      } finally {
        journal.close()
      }
    }
    return send(res, 404, { error: `Not found: ${url.pathname.slice(0, 200)}. The API has /api/sessions, /api/sessions/<id>/page and /api/sessions/<id>/follow.` })
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address() as AddressInfo
  const shown = address.family === 'IPv6' ? `[${address.address}]` : address.address
  return {
    url: `http://${shown}:${address.port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

function serveAsset(res: ServerResponse, assets: ClientAssets, path: string): void {
  const plugin = /^\/plugins\/(\d{1,4})\.js$/.exec(path)
  if (path === '/' || path === '/index.html') return sendText(res, 'text/html', assets.html)
  if (path === '/assets/app.js') return sendText(res, 'text/javascript', assets.js)
  if (path === '/assets/app.css') return sendText(res, 'text/css', assets.css)
  if (path === '/favicon.ico') return void res.writeHead(204).end()
  if (plugin && assets.plugins[Number(plugin[1])] !== undefined) return sendText(res, 'text/javascript', assets.plugins[Number(plugin[1])]!)
  return send(res, 404, { error: `Not found: ${path.slice(0, 200)}.` })
}

function decodeSegment(segment: string): string {
  try {
    return decodeURIComponent(segment)
  } catch {
    throw new ViewError('view-bad-request', 'The session name in the path is not valid percent-encoding.')
  }
}

function offsetParam(text: string | null): number {
  if (text === null || text === '') return 0
  const offset = Number(text)
  if (!Number.isSafeInteger(offset) || offset < 0) throw new ViewError('view-bad-request', `offset takes a byte offset (a whole number ≥ 0), got "${text.slice(0, 40)}".`)
  return offset
}

function sendText(res: ServerResponse, type: string, body: string): void {
  res.writeHead(200, { 'Content-Type': `${type}; charset=utf-8`, 'Cache-Control': 'no-cache' })
  res.end(body)
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store' })
  res.end(JSON.stringify(body))
}
