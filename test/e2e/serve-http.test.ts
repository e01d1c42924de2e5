import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { httpServer, NODE_ARGS, SERVE_TOOLS, type HttpChild } from './serve-helpers.ts'

const TOKEN = 'secret-token'

describe('ptc serve --http (Streamable HTTP, S8.2, S9.4, S9.7)', { timeout: 30_000 }, () => {
  let server: HttpChild
  let workspace: string
  const clients: Client[] = []
  beforeAll(async () => {
    workspace = mkdtempSync(join(tmpdir(), 'ptc-serve-http-'))
    server = await httpServer(['--host', '127.0.0.1', '--token', TOKEN, '--workspace', workspace, '--tools', SERVE_TOOLS])
  }, 60_000)
  afterAll(async () => {
    await Promise.all(clients.map((client) => client.close().catch(() => {})))
    await server?.stop()
  })

  async function connect(token = TOKEN): Promise<Client> {
    const client = new Client({ name: 'e2e-http', version: '1' })
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }))
    clients.push(client)
    return client
  }

  it('a request with a wrong or missing token gets 401; the right token works', async () => {
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '1' } } }
    const post = (headers: Record<string, string>) =>
      fetch(server.url, { method: 'POST', headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(initialize) })
    const wrong = await post({ Authorization: 'Bearer nope' })
    expect(wrong.status).toBe(401)
    expect(wrong.headers.get('www-authenticate')).toMatch(/^Bearer/)
    expect(((await wrong.json()) as { error: { message: string } }).error.message).toMatch(/Unauthorized/)
    expect((await post({})).status).toBe(401)
    await expect(connect('nope')).rejects.toThrow()
    const client = await connect()
    expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('run_code')
  })

  it('two sessions run concurrently, each with its own agent and spill folder', { timeout: 150_000 }, async () => {
    const [a, b] = await Promise.all([connect(), connect()])
    // Over the 20,000-character cap, so the result is spilled into the session's own folder.
    // `meet` answers met: true as soon as the other session's call arrives while it waits: order,
    // not time. Its wait and the runs' deadlines are long only so that a loaded machine, where the
    // second run takes a while to reach its call, cannot fail the test; they pass only on failure.
    const code = 'const { met } = await tools.meet({ ms: 100000 }); return { met, pad: "x".repeat(30000) }'
    const results = await Promise.all([a, b].map((client) => client.callTool({ name: 'run_code', arguments: { code, timeoutMs: 110_000 } }, undefined, { timeout: 120_000 })))
    const spills = results.map((result) => {
      expect(result.structuredContent).toMatchObject({ status: 'ok', value: { met: true } })
      const path = /the full result is in ([^\s\]]+)\]/.exec(JSON.stringify(result.content).replace(/\\n/g, '\n'))?.[1]
      expect(path).toBeDefined()
      return path!
    })
    const folders = spills.map((path) => dirname(path))
    expect(folders[0]).not.toBe(folders[1])
    for (const [index, folder] of folders.entries()) {
      expect(dirname(folder)).toBe(join(workspace, '.ptc', 'spill'))
      expect(basename(folder)).toMatch(/^mcp-[0-9a-f-]{36}$/)
      // Each session's folder holds only that session's spill.
      expect(readdirSync(folder)).toEqual([basename(spills[index]!)])
    }
  })

  it('a non-loopback bind without a token is refused at start-up, before listening', () => {
    const refused = spawnSync(process.execPath, [...NODE_ARGS, 'serve', '--http', '--host', '0.0.0.0', '--port', '0'], { env: { ...process.env, PTC_SERVE_TOKEN: '' }, encoding: 'utf8', timeout: 25_000 })
    expect(refused.status).toBe(2)
    expect(refused.stderr).toMatch(/Refusing to listen on 0\.0\.0\.0.*bearer token/)
    expect(refused.stderr).not.toMatch(/listening on/)
  })
})
