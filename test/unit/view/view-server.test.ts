import { appendFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { execFileSync } from 'node:child_process'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CONTENT_SECURITY_POLICY, startViewer, type ViewerHandle } from '../../../src/view/view-server.ts'

/** GET `path` with raw headers (node:http, so Host can be set); resolves status, headers, body. */
function get(base: string, path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  const url = new URL(base)
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, path, method, headers }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

const line = (record: object) => `${JSON.stringify(record)}\n`

describe('ptc view server (S11.6)', () => {
  let workspace: string
  let journal: string
  let viewer: ViewerHandle
  beforeAll(async () => {
    workspace = mkdtempSync(join(tmpdir(), 'ptc-view-'))
    journal = join(workspace, '.ptc', 'journal')
    mkdirSync(journal, { recursive: true })
    writeFileSync(join(journal, '2026-12-01T08-00-00-000Z-1.jsonl'), line({ type: 'tool/call', callId: 'r', name: 'run_code', arguments: { code: '1' }, agent: 'cli', fromCode: false, seq: 1 }) + line({ type: 'tool/result', callId: 'r', name: 'run_code', arguments: {}, agent: 'cli', isError: false, content: [], value: { status: 'error' }, durationMs: 1, seq: 2 }))
    writeFileSync(
      join(journal, '2026-12-01T09-00-00-000Z-mcp-x.jsonl'),
      line({ type: 'tool/call', callId: 'r', name: 'run_code', arguments: { code: '1' }, agent: 'mcp-x', session: 'sess-1', fromCode: false, seq: 1 }) +
        line({ type: 'tool/call', callId: 'r/a:1', name: 'echo', arguments: {}, agent: 'mcp-x', fromCode: true, seq: 2 }) +
        line({ type: 'tool/result', callId: 'r/a:1', name: 'echo', arguments: {}, agent: 'mcp-x', isError: true, content: [], error: { kind: 'denied', message: 'no' }, durationMs: 1, seq: 3 }) +
        'not json\n' +
        '{"type":"tool/call","callId":"half"',
    )
    writeFileSync(join(workspace, 'secret.jsonl'), line({ secret: true }))
    symlinkSync(join(workspace, 'secret.jsonl'), join(journal, '2026-12-01T10-00-00-000Z-link.jsonl'))
    execFileSync('mkfifo', [join(journal, '2026-12-01T11-00-00-000Z-fifo.jsonl')])
    viewer = await startViewer({ workspace, port: 0 })
  })
  afterAll(async () => {
    await viewer?.close()
    rmSync(workspace, { recursive: true, force: true })
  })

  it('S11.6 lists sessions newest first with agent, MCP session, runs, calls, failures and calls running; symlinks and FIFOs are not sessions', async () => {
    const response = await get(viewer.url, '/api/sessions')
    expect(response.status).toBe(200)
    const page = JSON.parse(response.body)
    expect(page).toMatchObject({ page: 1, pages: 1, total: 2 })
    expect(page.sessions.map((session: Record<string, unknown>) => [session.id, session.agent, session.mcpSession, session.runs, session.calls, session.failures, session.running])).toEqual([
      ['2026-12-01T09-00-00-000Z-mcp-x.jsonl', 'mcp-x', 'sess-1', 1, 2, 1, 1],
      ['2026-12-01T08-00-00-000Z-1.jsonl', 'cli', undefined, 1, 1, 1, 0],
    ])
    expect(page.sessions[0].time).toBe('2026-12-01T09:00:00.000Z')
  })

  it('S11.6 page gives the raw records of complete lines only, a bad line as a note, and where to go on', async () => {
    const response = await get(viewer.url, '/api/sessions/2026-12-01T09-00-00-000Z-mcp-x.jsonl/page')
    const page = JSON.parse(response.body)
    expect(page.records.map((record: Record<string, unknown>) => record.type)).toEqual(['tool/call', 'tool/call', 'tool/result', 'view/note'])
    expect(page.records[1]).toEqual({ type: 'tool/call', callId: 'r/a:1', name: 'echo', arguments: {}, agent: 'mcp-x', fromCode: true, seq: 2 })
    const again = JSON.parse((await get(viewer.url, `/api/sessions/2026-12-01T09-00-00-000Z-mcp-x.jsonl/page?offset=${page.next}`)).body)
    expect(again).toMatchObject({ records: [], next: page.next })
  })

  it('S11.6 follow streams records appended after it started, as server-sent events', async () => {
    const name = '2026-12-01T12-00-00-000Z-live.jsonl'
    writeFileSync(join(journal, name), line({ type: 'tool/call', callId: 'a', name: 'echo', arguments: {}, seq: 1 }))
    const abort = new AbortController()
    const response = await fetch(new URL(`/api/sessions/${name}/follow?offset=0`, viewer.url), { signal: abort.signal })
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader()
    let text = ''
    const until = async (needle: string) => {
      while (!text.includes(needle)) text += (await reader.read()).value ?? ''
    }
    await until('"callId":"a"')
    appendFileSync(join(journal, name), '{"type":"tool/result","callId":"a",')
    appendFileSync(join(journal, name), '"name":"echo","isError":false,"seq":2}\n')
    await until('"type":"tool/result"')
    const events = text.split('\n\n').filter((block) => block.includes('event: records'))
    expect(events).toHaveLength(2)
    expect(JSON.parse(events[1]!.split('data: ')[1]!).records).toEqual([{ type: 'tool/result', callId: 'a', name: 'echo', isError: false, seq: 2 }])
    abort.abort()
  })

  it('S8 path parameters cannot leave the journal folder: .., encoded slashes, symlinks, FIFOs', async () => {
    for (const path of [
      '/api/sessions/..%2F..%2Fsecret.jsonl/page',
      '/api/sessions/%2e%2e%2fsecret.jsonl/page',
      '/api/sessions/..%2Fjournal%2F2026-12-01T08-00-00-000Z-1.jsonl/page',
      '/api/sessions/%2Fetc%2Fpasswd/page',
      '/api/sessions/..%5C..%5Csecret.jsonl/page',
      '/api/sessions/.hidden.jsonl/page',
      '/api/sessions/%/page',
    ]) {
      const response = await get(viewer.url, path)
      expect([path, response.status]).toEqual([path, 400])
      expect(response.body).not.toContain('"secret":true')
    }
    for (const path of ['/api/sessions/2026-12-01T10-00-00-000Z-link.jsonl/page', '/api/sessions/2026-12-01T11-00-00-000Z-fifo.jsonl/page', '/api/sessions/missing.jsonl/follow']) {
      const response = await get(viewer.url, path)
      expect([path, response.status]).toEqual([path, 404])
      expect(response.body).not.toContain('"secret":true')
    }
    // The URL parser resolves literal dot segments before routing: they land outside /api/sessions.
    expect((await get(viewer.url, '/api/sessions/../../secret.jsonl/page')).status).toBe(404)
    expect((await get(viewer.url, '/../secret.jsonl')).status).toBe(404)
  })

  it('S8 a journal folder reached through a symlinked .ptc or journal is refused', async () => {
    const other = mkdtempSync(join(tmpdir(), 'ptc-view-link-'))
    const elsewhere = mkdtempSync(join(tmpdir(), 'ptc-view-elsewhere-'))
    mkdirSync(join(elsewhere, 'journal'))
    writeFileSync(join(elsewhere, 'journal', '2026-12-01T08-00-00-000Z-1.jsonl'), line({ type: 'tool/call', callId: 'outside' }))
    symlinkSync(elsewhere, join(other, '.ptc'))
    const linked = await startViewer({ workspace: other, port: 0 })
    try {
      expect((await get(linked.url, '/api/sessions/2026-12-01T08-00-00-000Z-1.jsonl/page')).status).toBe(404)
      const list = await get(linked.url, '/api/sessions')
      expect(list.status).toBe(403)
      expect(JSON.parse(list.body).error).toMatch(/symbolic link.*remove the link/)
      expect(list.body).not.toContain('outside')
    } finally {
      await linked.close()
      rmSync(other, { recursive: true, force: true })
      rmSync(elsewhere, { recursive: true, force: true })
    }
  })

  it('S11.6 every response carries the strict CSP and nosniff; the page names only same-origin files', async () => {
    for (const path of ['/', '/assets/app.js', '/assets/app.css', '/api/sessions', '/nope']) {
      const response = await get(viewer.url, path)
      expect(response.headers['content-security-policy']).toBe(CONTENT_SECURITY_POLICY)
      expect(response.headers['x-content-type-options']).toBe('nosniff')
    }
    expect(CONTENT_SECURITY_POLICY).toContain("script-src 'self'")
    expect(CONTENT_SECURITY_POLICY).toContain("require-trusted-types-for 'script'")
    const page = (await get(viewer.url, '/')).body
    expect(page).not.toMatch(/https?:\/\//)
    expect((await get(viewer.url, '/assets/app.js')).body).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write/)
  })

  it('S11.6 the viewer is read-only and answers only loopback Host names and Origins on a loopback bind (DNS rebinding, other sites)', async () => {
    expect((await get(viewer.url, '/api/sessions', {}, 'POST')).status).toBe(405)
    expect((await get(viewer.url, '/api/sessions', { Host: 'evil.example:80' })).status).toBe(403)
    expect((await get(viewer.url, '/api/sessions', { Host: 'localhost:1' })).status).toBe(200)
    for (const origin of ['http://evil.example', 'null']) {
      const refused = await get(viewer.url, '/api/sessions', { Origin: origin })
      expect(refused.status).toBe(403)
      expect(JSON.parse(refused.body).error).toBe(`Forbidden: Origin "${origin}" is not a loopback origin.`)
    }
    expect((await get(viewer.url, '/api/sessions', { Origin: new URL(viewer.url).origin })).status).toBe(200)
  })

  it('S11.6 a non-loopback bind needs a token, which every /api/ request must carry', async () => {
    await expect(startViewer({ workspace, host: '0.0.0.0', port: 0 })).rejects.toMatchObject({ code: 'view-exposure', message: expect.stringMatching(/--token/) })
    await expect(startViewer({ workspace, port: 70_000 })).rejects.toMatchObject({ code: 'view-exposure' })
    const open = await startViewer({ workspace, host: '0.0.0.0', port: 0, token: 'tok' })
    try {
      const base = open.url.replace('0.0.0.0', '127.0.0.1')
      expect((await get(base, '/api/sessions')).status).toBe(401)
      expect((await get(base, '/api/sessions', { Authorization: 'Bearer nope' })).status).toBe(401)
      expect((await get(base, '/api/sessions', { Authorization: 'Bearer tok' })).status).toBe(200)
      expect((await get(base, '/')).status).toBe(200)
    } finally {
      await open.close()
    }
  })
})
