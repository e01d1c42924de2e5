/**
 * Closing `ptc serve --http` (SIGINT/SIGTERM) with calls in flight (S11.1, S9.4): each session's
 * calls are aborted and waited for, up to 2 s, before its journal and transport close, so every
 * client gets an answer instead of a dropped connection, and every journaled `tool/call` (a run's
 * inner calls included) keeps its `tool/result`, even when the aborted tool takes a moment to stop.
 * And a client that goes away without a DELETE (the SDK's `close()` sends none): the calls of the
 * request whose connection dropped are stopped instead of holding a run slot to their deadline.
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { afterAll, describe, expect, it } from 'vitest'
import { createHost } from '../../../src/host/create-host.ts'
import { serveHttp } from '../../../src/server/http-server.ts'
import { createRunLimiter } from '../../../src/server/run-limiter.ts'
import { serve } from '../../../src/server/serve.ts'
import { stoppableTool } from '../../helpers/stoppable-tool.ts'

const workspace = mkdtempSync(join(tmpdir(), 'ptc-http-shutdown-'))

describe('ptc serve --http closes with calls in flight (S11.1)', { timeout: 30_000 }, () => {
  const cleanUp: (() => Promise<unknown>)[] = []
  afterAll(async () => {
    for (const step of cleanUp.reverse()) await step().catch(() => {})
  })

  for (const through of ['serveHttp', 'serve (as ptc serve runs it)'] as const) {
    it(`S11.1 a run in flight is answered to its client, and its inner call and itself are journaled with their results (${through})`, async () => {
      const host = await createHost({ workspace, journal: false, builtins: 'none' })
      cleanUp.push(() => host.dispose())
      const { tool, running } = stoppableTool('slow_stop', 150)
      host.ctx.tools.register(tool)
      const journalDir = mkdtempSync(join(workspace, 'journal-'))
      const server =
        through === 'serveHttp'
          ? await serveHttp(host.ctx, { exposeTools: false, limiter: createRunLimiter(2), journalDir, port: 0 })
          : ((await serve(host.ctx, { transport: 'http', exposeTools: false, journalDir, port: 0 })) as { url: string; close(): Promise<void> })
      cleanUp.push(() => server.close())
      const client = new Client({ name: 'shutdown', version: '1' })
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url)))
      cleanUp.push(() => client.close())

      const call = client.callTool({ name: 'run_code', arguments: { code: 'await tools.slow_stop({}); return 1', typecheck: false } })
      await running
      await server.close()
      const answer = (await call) as { isError?: boolean; content: { type: string; text: string }[] }
      expect(answer.isError).toBe(true)
      expect(answer.content.map((block) => block.text).join('\n')).toMatch(/cancel/i)

      const [file] = readdirSync(journalDir)
      const records = readFileSync(join(journalDir, file!), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { type: string; name: string })
      const of = (type: string) => records.filter((record) => record.type === type).map((record) => record.name).sort()
      expect(of('tool/call')).toEqual(['run_code', 'slow_stop'])
      expect(of('tool/result')).toEqual(['run_code', 'slow_stop'])
    })
  }
})

describe('ptc serve --http: a client gone without a DELETE (S9.4)', { timeout: 30_000 }, () => {
  it('S9.4 the calls of a request whose connection dropped before its answer are stopped, not left to their deadline', async () => {
    const host = await createHost({ workspace, journal: false, builtins: 'none' })
    const { tool, running, stopped } = stoppableTool('wait_for_stop')
    host.ctx.tools.register(tool)
    const server = await serveHttp(host.ctx, { exposeTools: false, limiter: createRunLimiter(2), journalDir: false, port: 0 })
    try {
      const transport = new StreamableHTTPClientTransport(new URL(server.url))
      const client = new Client({ name: 'gone', version: '1' })
      await client.connect(transport)
      // The SDK's close() aborts the request's fetch and sends no DELETE.
      void client.callTool({ name: 'run_code', arguments: { code: 'await tools.wait_for_stop({})', typecheck: false, timeoutMs: 120_000 } }).catch(() => {})
      await running
      await client.close()
      await stopped
      expect(server.sessions).toBe(1) // the session stays (no DELETE came); only the dropped request's calls stopped
    } finally {
      await server.close()
      await host.dispose()
    }
  })
})

describe('serve() with its defaults (S9.4)', { timeout: 30_000 }, () => {
  const cleanUp: (() => Promise<unknown>)[] = []
  afterAll(async () => {
    for (const step of cleanUp.reverse()) await step().catch(() => {})
  })

  it('S9.4 serve with only a transport and a port (no journalDir, no exposeTools) answers initialize, lists run_code and runs it', async () => {
    const host = await createHost({ workspace, journal: false, builtins: 'none' })
    cleanUp.push(() => host.dispose())
    const server = (await serve(host.ctx, { transport: 'http', port: 0 })) as { url: string; close(): Promise<void> }
    cleanUp.push(() => server.close())
    const client = new Client({ name: 'defaults', version: '1' })
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)))
    cleanUp.push(() => client.close())
    const { tools } = await client.listTools()
    expect(tools.map((tool) => tool.name)).toContain('run_code')
    const answer = (await client.callTool({ name: 'run_code', arguments: { code: 'return 6 * 7', typecheck: false } })) as { isError?: boolean; structuredContent?: { value?: unknown } }
    expect(answer.isError).toBeFalsy()
    expect(answer.structuredContent?.value).toBe(42)
  })
})
