import { existsSync, mkdtempSync, readdirSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../../../src/host/create-host.ts'
import { MAX_BODY_BYTES, serveHttp, type HttpServeOptions, type HttpServerHandle } from '../../../src/server/http-server.ts'
import { createRunLimiter } from '../../../src/server/run-limiter.ts'

const TOOLS = fileURLToPath(new URL('../../fixtures/serve-tools.ts', import.meta.url))
const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }
const HEADERS = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' }

describe('ptc serve --http sessions are bounded (S9.4)', { timeout: 30_000 }, () => {
  let host: Host
  let workspace: string
  const servers: HttpServerHandle[] = []
  const clients: Client[] = []

  beforeAll(async () => {
    workspace = mkdtempSync(join(tmpdir(), 'ptc-http-'))
    host = await createHost({ workspace, journal: false, toolModules: [TOOLS] })
  }, 60_000)
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => {})))
    for (const server of servers) await server.close()
    await host.dispose()
  })

  async function start(options: Partial<HttpServeOptions> = {}) {
    const journalDir = mkdtempSync(join(workspace, 'journal-'))
    const server = await serveHttp(host.ctx, { exposeTools: false, limiter: createRunLimiter(2), journalDir, port: 0, ...options })
    servers.push(server)
    return { server, journalDir }
  }
  async function connect(url: string): Promise<Client> {
    const client = new Client({ name: 'unit-http', version: '1' })
    await client.connect(new StreamableHTTPClientTransport(new URL(url)))
    clients.push(client)
    return client
  }
  const post = (url: string, headers: Record<string, string>, body: unknown = INITIALIZE) => fetch(url, { method: 'POST', headers, body: JSON.stringify(body) })

  it('an initialize the SDK refuses (406, 415) opens no session and writes no journal file', async () => {
    const { server, journalDir } = await start()
    expect((await post(server.url, { 'Content-Type': 'application/json', Accept: 'application/json' })).status).toBe(406)
    expect((await post(server.url, { 'Content-Type': 'text/plain', Accept: HEADERS.Accept })).status).toBe(415)
    expect(server.sessions).toBe(0)
    expect(existsSync(journalDir) ? readdirSync(journalDir) : []).toEqual([])
    // An accepted initialize does open one, with its journal.
    await connect(server.url)
    expect(server.sessions).toBe(1)
    expect(readdirSync(journalDir)).toHaveLength(1)
  })

  it('S9.4 an initialize sent as a notification (no id) gets 400 -32600 and opens no session; one with invalid params gets 400 -32602', async () => {
    const { server, journalDir } = await start()
    const { id: _id, ...notification } = INITIALIZE
    const asNotification = await post(server.url, HEADERS, notification)
    expect(asNotification.status).toBe(400)
    expect(await asNotification.json()).toMatchObject({ id: null, error: { code: -32600, message: 'Invalid Request: initialize is a request: it needs an id (a string or a number).' } })
    const badParams = await post(server.url, HEADERS, { ...INITIALIZE, params: {} })
    expect(badParams.status).toBe(400)
    expect(await badParams.json()).toMatchObject({ id: 1, error: { code: -32602, message: expect.stringMatching(/^Invalid params for initialize: /) } })
    expect(server.sessions).toBe(0)
    expect(existsSync(journalDir) ? readdirSync(journalDir) : []).toEqual([])
  })

  it('S9.4 a 401 and a 413 close their connection, and a body over the limit is refused without being read to its end (one that never ends gets its 413)', async () => {
    const { server } = await start({ token: 'T' })
    const unauthorized = await post(server.url, HEADERS)
    expect(unauthorized.status).toBe(401)
    expect(unauthorized.headers.get('connection')).toBe('close')
    const tooLong = await fetch(server.url, { method: 'POST', headers: { ...HEADERS, Authorization: 'Bearer T' }, body: 'x'.repeat(MAX_BODY_BYTES + 1) })
    expect(tooLong.status).toBe(413)
    expect(tooLong.headers.get('connection')).toBe('close')
    // Expect: 100-continue with a Content-Length over the limit: the 413 comes instead of 100 Continue.
    const { hostname: host, port: portNumber, pathname: path } = new URL(server.url)
    const continued = await new Promise<{ status: number; invited: boolean }>((resolve, reject) => {
      let invited = false
      const request = httpRequest({ hostname: host, port: portNumber, path, method: 'POST', headers: { ...HEADERS, Authorization: 'Bearer T', Expect: '100-continue', 'Content-Length': String(MAX_BODY_BYTES + 1) } })
      request.on('continue', () => (invited = true))
      request.on('response', (response) => {
        response.resume()
        resolve({ status: response.statusCode ?? 0, invited })
        request.destroy()
      })
      request.on('error', (error) => (request.destroyed ? undefined : reject(error)))
      request.flushHeaders()
    })
    expect(continued).toEqual({ status: 413, invited: false })
    // A chunked body that never ends: the answer comes once the limit is passed.
    const { hostname, port, pathname } = new URL(server.url)
    const status = await new Promise<number>((resolve, reject) => {
      const request = httpRequest({ hostname, port, path: pathname, method: 'POST', headers: { ...HEADERS, Authorization: 'Bearer T' } }, (response) => {
        response.resume()
        resolve(response.statusCode ?? 0)
        request.destroy()
      })
      request.on('error', (error) => (request.destroyed ? undefined : reject(error)))
      const chunk = Buffer.alloc(64 * 1024, 0x20)
      const pump = () => {
        while (!request.destroyed && request.write(chunk));
        if (!request.destroyed) request.once('drain', pump)
      }
      pump()
    })
    expect(status).toBe(413)
  })

  it('S9.4 in a session, a body that is no JSON-RPC message gets -32600 as over stdio (its id when readable), not -32700; an empty batch too', async () => {
    const { server } = await start()
    const sessionId = (await post(server.url, HEADERS)).headers.get('mcp-session-id')!
    const send = async (body: unknown) => {
      const response = await fetch(server.url, { method: 'POST', headers: { ...HEADERS, 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': '2025-06-18' }, body: JSON.stringify(body) })
      return { status: response.status, body: (await response.json()) as { id: unknown; error: { code: number } } }
    }
    for (const [body, id] of [[{}, null], [{ jsonrpc: '2.0', method: 1 }, null], [{ jsonrpc: '2.0', id: 6, method: 'ping', params: 'x' }, 6], [[], null]] as const) {
      const answer = await send(body)
      expect(answer.status, JSON.stringify(body)).toBe(400)
      expect(answer.body, JSON.stringify(body)).toMatchObject({ id, error: { code: -32600 } })
    }
  })

  it('a request with a non-loopback Origin gets 403 on a loopback bind; a loopback Origin is served', async () => {
    const { server } = await start()
    for (const origin of ['http://evil.example', 'null', 'http://127.0.0.1.evil.example:8765']) {
      const refused = await post(server.url, { ...HEADERS, Origin: origin })
      expect(refused.status).toBe(403)
      expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/Origin .* is not a loopback origin/)
    }
    expect(server.sessions).toBe(0)
    const allowed = await post(server.url, { ...HEADERS, Origin: 'http://localhost:3000' })
    expect(allowed.status).toBe(200)
    await allowed.body?.cancel()
    expect(server.sessions).toBe(1)
  })

  it('a session idle for sessionIdleMs is closed; its id then gets 404', async () => {
    const { server } = await start({ sessionIdleMs: 300 })
    const client = await connect(server.url)
    expect((await client.listTools()).tools.length).toBeGreaterThan(0)
    expect(server.sessions).toBe(1)
    await expect.poll(() => server.sessions, { timeout: 5_000 }).toBe(0)
    await expect(client.listTools()).rejects.toThrow(/404|Session not found/)
  })

  it('a session with a call in flight is not idle', async () => {
    // Order, not durations (issue 14): A's call stays in flight until a later call meets it, and
    // is released only after idleness has closed B, a session opened after A with nothing in flight.
    const { server } = await start({ sessionIdleMs: 2_000, exposeTools: true })
    const a = await connect(server.url)
    const inFlight = a.callTool({ name: 'meet', arguments: { ms: 120_000 } }, undefined, { timeout: 150_000 })
    await connect(server.url)
    expect(server.sessions).toBe(2)
    await expect.poll(() => server.sessions, { timeout: 60_000, interval: 100 }).toBe(1)
    // A is the one still open: it answers, and its in-flight call is met from a third session.
    expect((await a.listTools()).tools.map((tool) => tool.name)).toContain('meet')
    const c = await connect(server.url)
    expect((await c.callTool({ name: 'meet', arguments: { ms: 60_000 } })).structuredContent).toEqual({ met: true })
    expect((await inFlight).structuredContent).toEqual({ met: true })
  }, 120_000)

  it('beyond maxSessions an initialize gets 503 with a clear message; closing one frees a slot', async () => {
    const { server } = await start({ maxSessions: 2 })
    await connect(server.url)
    const second = await connect(server.url)
    const refused = await post(server.url, HEADERS)
    expect(refused.status).toBe(503)
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/2 sessions are open/)
    await (second.transport as StreamableHTTPClientTransport).terminateSession()
    await expect.poll(() => server.sessions).toBe(1)
    await connect(server.url)
    expect(server.sessions).toBe(2)
  })
})
