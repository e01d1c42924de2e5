/**
 * A request whose id is the id of a request still in flight (JSON-RPC 2.0 §4: ids of concurrent
 * requests are unique) is refused with -32600 naming the id, over both transports of `ptc serve`;
 * the first request runs on and gets its own answer, and once it is answered (or, cancelled, has
 * stopped) the id can be used again. (SPEC S9.4: run_code is the transport; the refusal happens
 * before any run.)
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../../../src/host/create-host.ts'
import { stdioServerTransport } from '../../../src/mcp/line-buffer.ts'
import { serveHttp, type HttpServerHandle } from '../../../src/server/http-server.ts'
import { openSession } from '../../../src/server/mcp-session.ts'
import { createRunLimiter } from '../../../src/server/run-limiter.ts'

const TOOLS = fileURLToPath(new URL('../../fixtures/serve-tools.ts', import.meta.url))
const INITIALIZE = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'dup', version: '1' } } }
const INITIALIZED = { jsonrpc: '2.0', method: 'notifications/initialized' }
/** A run_code call with `id` returning `value`, after `sleepMs` when given. */
const runCode = (id: number | string, value: string, sleepMs = 0) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name: 'run_code', arguments: { code: `${sleepMs > 0 ? `await tools.sleep({ ms: ${sleepMs} }); ` : ''}return ${JSON.stringify(value)}`, typecheck: false, timeoutMs: 60_000 } },
})

interface Answer {
  id: unknown
  result?: { structuredContent?: { status?: string; value?: unknown } }
  error?: { code: number; message: string }
}

/** A session over stdio on in-memory streams, and every line it answers, parsed, in order. */
async function stdioSession(host: Host) {
  const stdin = new PassThrough()
  const stdout = new PassThrough()
  const answers: Answer[] = []
  let pending = ''
  stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8')
    for (let newline = pending.indexOf('\n'); newline !== -1; newline = pending.indexOf('\n')) {
      answers.push(JSON.parse(pending.slice(0, newline)) as Answer)
      pending = pending.slice(newline + 1)
    }
  })
  const session = await openSession(host.ctx, { exposeTools: false, limiter: createRunLimiter(4), journalDir: false })
  await session.server.connect(stdioServerTransport(stdin, stdout))
  return { stdin, answers, session }
}

describe('a request id still in flight is refused (JSON-RPC 2.0 §4, S9.4)', { timeout: 60_000 }, () => {
  let host: Host
  let workspace: string
  beforeAll(async () => {
    workspace = mkdtempSync(join(tmpdir(), 'ptc-dup-ids-'))
    host = await createHost({ workspace, journal: false, toolModules: [TOOLS] })
  }, 60_000)
  afterAll(async () => {
    await host.dispose()
    rmSync(workspace, { recursive: true, force: true })
  })

  it('S9.4 over stdio: the duplicate gets -32600 naming its id, the first request runs on to its own answer, and the id is free again once answered', async () => {
    const { stdin, answers, session } = await stdioSession(host)
    const send = (message: object) => stdin.write(`${JSON.stringify(message)}\n`)
    const answersTo = (id: unknown) => answers.filter((answer) => answer.id === id)
    try {
      send(INITIALIZE)
      send(INITIALIZED)
      await expect.poll(() => answersTo(0).length).toBe(1)
      send(runCode(5, 'first', 1_500))
      send(runCode(5, 'second'))
      send(runCode('a', 'first', 1_500))
      send(runCode('a', 'second'))
      await expect.poll(() => answersTo(5).length + answersTo('a').length, { timeout: 30_000 }).toBe(4)
      for (const [id, shown] of [[5, '5'], ['a', '"a"']] as const) {
        const [refused, first] = answersTo(id)
        expect(refused).toMatchObject({ id, error: { code: -32600 } })
        expect(refused!.error!.message).toBe(`Invalid Request: request id ${shown} is still in flight (a request with this id was received and has not been answered yet); JSON-RPC request ids must be unique among the requests in flight. Wait for its answer, or send this request with another id.`)
        expect(first).toMatchObject({ id, result: { structuredContent: { status: 'ok', value: 'first' } } })
      }
      send(runCode(5, 'again'))
      await expect.poll(() => answersTo(5).length, { timeout: 30_000 }).toBe(3)
      expect(answersTo(5)[2]).toMatchObject({ result: { structuredContent: { status: 'ok', value: 'again' } } })
    } finally {
      await session.close()
      await session.server.close()
    }
  })

  it('S9.4 over stdio: a request reusing the id of a cancelled run_code still stopping is refused, the cancelled call gets no answer, and the id is free once it has stopped', async () => {
    const { stdin, answers, session } = await stdioSession(host)
    const line = (message: object) => `${JSON.stringify(message)}\n`
    const answersTo = (id: unknown) => answers.filter((answer) => answer.id === id)
    try {
      stdin.write(line(INITIALIZE) + line(INITIALIZED))
      await expect.poll(() => answersTo(0).length).toBe(1)
      stdin.write(line(runCode(7, 'never', 3_000)))
      await new Promise((resolve) => setTimeout(resolve, 800))
      // The cancel and a request reusing its id in one chunk: the SDK handles the cancel a microtask later.
      stdin.write(line({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 7, reason: 'stop' } }) + line({ jsonrpc: '2.0', id: 7, method: 'ping' }))
      await expect.poll(() => answersTo(7).length).toBe(1)
      expect(answersTo(7)[0]).toEqual({
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32600, message: 'Invalid Request: request id 7 is still in flight: the request with this id was cancelled and is still stopping (a cancelled request gets no answer; its id is free once it has stopped). JSON-RPC request ids must be unique among the requests in flight. Retry shortly, or send this request with another id.' },
      })
      // Retried until the cancelled run has stopped: then the ping gets its own answer, and the cancelled call never got one.
      let pings = 0
      await expect
        .poll(
          () => {
            if (answersTo(7).some((answer) => 'result' in answer)) return true
            if (answersTo(7).length === 1 + pings) {
              pings++
              stdin.write(line({ jsonrpc: '2.0', id: 7, method: 'ping' }))
            }
            return false
          },
          { timeout: 10_000, interval: 50 },
        )
        .toBe(true)
      expect(answersTo(7).at(-1)).toEqual({ jsonrpc: '2.0', id: 7, result: {} })
      expect(answersTo(7).slice(0, -1).every((answer) => answer.error?.code === -32600)).toBe(true)
      stdin.write(line(runCode(7, 'reused')))
      await expect.poll(() => answersTo(7).at(-1)?.result?.structuredContent?.value, { timeout: 30_000 }).toBe('reused')
      await new Promise((resolve) => setTimeout(resolve, 2_500))
      expect(answers.filter((answer) => answer.result?.structuredContent !== undefined)).toHaveLength(1)
    } finally {
      await session.close()
      await session.server.close()
    }
  })

  describe('over HTTP', () => {
    let server: HttpServerHandle
    beforeAll(async () => {
      server = await serveHttp(host.ctx, { exposeTools: false, limiter: createRunLimiter(4), journalDir: false, host: '127.0.0.1', port: 0 })
    })
    afterAll(() => server.close())

    const headers = (sessionId?: string) => ({
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...(sessionId !== undefined && { 'Mcp-Session-Id': sessionId, 'MCP-Protocol-Version': '2025-06-18' }),
    })
    const post = (body: unknown, sessionId?: string) => fetch(server.url, { method: 'POST', headers: headers(sessionId), body: JSON.stringify(body) })
    /** A new session, initialized: its id. */
    const openHttpSession = async (): Promise<string> => {
      const initialized = await post(INITIALIZE)
      const sessionId = initialized.headers.get('mcp-session-id')!
      await initialized.body?.cancel()
      expect((await post(INITIALIZED, sessionId)).status).toBe(202)
      return sessionId
    }
    /** The JSON-RPC answers in a POST's event stream. */
    const streamed = async (response: Response): Promise<Answer[]> =>
      (await response.text())
        .split('\n')
        .filter((line) => line.startsWith('data: '))
        .map((line) => JSON.parse(line.slice(6)) as Answer)

    it('S9.4 the duplicate POST gets 400 with -32600 naming the id, and the first POST still gets its own answer', async () => {
      const sessionId = await openHttpSession()
      const first = post(runCode(7, 'first', 1_500), sessionId)
      await new Promise((resolve) => setTimeout(resolve, 300))
      const duplicate = await post(runCode(7, 'second'), sessionId)
      expect(duplicate.status).toBe(400)
      expect(await duplicate.json()).toEqual({
        jsonrpc: '2.0',
        id: 7,
        error: { code: -32600, message: 'Invalid Request: request id 7 is still in flight (a request with this id was received and has not been answered yet); JSON-RPC request ids must be unique among the requests in flight. Wait for its answer, or send this request with another id.' },
      })
      expect(await streamed(await first)).toMatchObject([{ id: 7, result: { structuredContent: { status: 'ok', value: 'first' } } }])
      // Answered: the id is the client's again.
      expect(await streamed(await post(runCode(7, 'again'), sessionId))).toMatchObject([{ id: 7, result: { structuredContent: { value: 'again' } } }])
    })

    it('S9.4 a cancelled request frees its id once it has stopped (it gets no answer, its POST\'s stream ends), and a POST the transport refuses claims none', async () => {
      const sessionId = await openHttpSession()
      const cancelled = post(runCode(8, 'never', 30_000), sessionId)
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect((await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 8, reason: 'changed my mind' } }, sessionId)).status).toBe(202)
      // Refused (400, "still stopping") until the cancelled run has stopped, then served.
      let reused: Answer[] = []
      await expect
        .poll(async () => {
          const response = await post(runCode(8, 'reused'), sessionId)
          if (response.status === 400) expect(((await response.json()) as Answer).error?.message).toMatch(/^Invalid Request: request id 8 is still in flight: the request with this id was cancelled and is still stopping/)
          else reused = await streamed(response)
          return response.status
        }, { timeout: 10_000, interval: 50 })
        .toBe(200)
      expect(reused).toMatchObject([{ id: 8, result: { structuredContent: { value: 'reused' } } }])
      // Its own POST's event stream has ended, with no answer in it (the SDK kept it open, and its session busy, until the session closed).
      expect(await streamed(await cancelled)).toEqual([])
      // Refused by the SDK's transport (no Accept for the event stream): nothing was delivered, so id 9 stays free.
      const refused = await fetch(server.url, { method: 'POST', headers: { ...headers(sessionId), Accept: 'application/json' }, body: JSON.stringify(runCode(9, 'x')) })
      expect(refused.status).toBe(406)
      expect(await streamed(await post(runCode(9, 'free'), sessionId))).toMatchObject([{ id: 9, result: { structuredContent: { value: 'free' } } }])
    })

    it('S1.3 S9.4 a cancel in a POST the transport refuses is not applied: its request runs on to its answer, and a duplicate of its id is told it is running, not stopping', async () => {
      const sessionId = await openHttpSession()
      const first = post(runCode(14, 'first', 1_500), sessionId)
      await new Promise((resolve) => setTimeout(resolve, 300))
      const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 14, reason: 'x' } }
      const refused = await fetch(server.url, { method: 'POST', headers: { ...headers(sessionId), Accept: 'application/json' }, body: JSON.stringify(cancel) })
      expect(refused.status).toBe(406)
      const duplicate = await post(runCode(14, 'second'), sessionId)
      expect(((await duplicate.json()) as Answer).error?.message).toMatch(/^Invalid Request: request id 14 is still in flight \(a request with this id was received and has not been answered yet\)/)
      expect(await streamed(await first)).toMatchObject([{ id: 14, result: { structuredContent: { status: 'ok', value: 'first' } } }])
    })

    it('S1.3 S9.4 a refused batch holding a request and its own cancel does not stop the earlier request with that id: it runs on to its answer', async () => {
      const sessionId = await openHttpSession()
      const first = post(runCode(15, 'first', 1_500), sessionId)
      await new Promise((resolve) => setTimeout(resolve, 300))
      const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 15, reason: 'x' } }
      const refused = await post([runCode(15, 'second'), cancel], sessionId)
      expect(refused.status).toBe(400)
      expect(((await refused.json()) as Answer[])[0]?.error?.message).toMatch(/^Invalid Request: request id 15 is still in flight \(a request with this id was received/)
      expect(await streamed(await first)).toMatchObject([{ id: 15, result: { structuredContent: { status: 'ok', value: 'first' } } }])
    })

    it('S1.3 S9.4 a cancel after its request in one batch stops that request: it gets no answer, and its id is free once it has stopped', async () => {
      const sessionId = await openHttpSession()
      const values: unknown[] = []
      const stopListening = host.ctx.on('tools/result', (result) => void (result.name === 'run_code' && values.push((result.value as { status?: unknown } | undefined)?.status)))
      try {
        const batch = await post([runCode(12, 'never', 30_000), { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 12, reason: 'x' } }], sessionId)
        expect(batch.status).toBe(200)
        // Refused while the cancelled call is stopping, then served.
        let reused: Answer[] = []
        await expect
          .poll(async () => {
            const response = await post(runCode(12, 'reused'), sessionId)
            if (response.status === 200) reused = await streamed(response)
            else await response.body?.cancel()
            return response.status
          }, { timeout: 20_000, interval: 50 })
          .toBe(200)
        expect(reused).toMatchObject([{ id: 12, result: { structuredContent: { value: 'reused' } } }])
        // The batch's only request was cancelled: its stream has ended, with no answer in it.
        expect(await streamed(batch)).toEqual([])
        // Cancelled before its handler started, the first call never ran: the only run is the reuse.
        expect(values).toEqual(['ok'])
      } finally {
        stopListening()
      }
    })

    it('S1.3 S9.4 a batch holding an id in flight is refused whole, an error for each of its requests (JSON-RPC 2.0 §6), none of them run; its cancel, which gets no answer, is still applied', async () => {
      const sessionId = await openHttpSession()
      const values: unknown[] = []
      const stopListening = host.ctx.on('tools/result', (result) => void (result.name === 'run_code' && values.push((result.value as { value?: unknown } | undefined)?.value)))
      /** The status of a POST, its body read (an event stream to its end). */
      const statusOf = async (body: unknown) => {
        const response = await post(body, sessionId)
        await response.text()
        return response.status
      }
      try {
        const first = post(runCode(10, 'first', 30_000), sessionId)
        // Wait until the server has claimed id 10 for the first request. The probe, a batch repeating
        // id 10, is refused whatever happens (for 10 in flight, else for the repeat) and claims nothing.
        const ping10 = { jsonrpc: '2.0', id: 10, method: 'ping' }
        await expect.poll(async () => ((await (await post([ping10, ping10], sessionId)).json()) as Answer[])[0]?.error?.message).toMatch(/^Invalid Request: request id 10 is still in flight \(/)
        const cancel = { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 10, reason: 'x' } }
        const refused = await post([runCode(9, 'not run'), cancel, runCode(10, 'second')], sessionId)
        expect(refused.status).toBe(400)
        expect(await refused.json()).toEqual([
          { jsonrpc: '2.0', id: 9, error: { code: -32600, message: 'Invalid Request: this batch was refused because request id 10 in it cannot be used now (see the error for that id); none of its requests was run, this one neither (what else it held, notifications and answers, was delivered). Send it again, without that id.' } },
          { jsonrpc: '2.0', id: 10, error: { code: -32600, message: expect.stringMatching(/^Invalid Request: request id 10 is still in flight: the request with this id was cancelled and is still stopping .* This whole batch was refused: none of its requests was run \(what else it held, notifications and answers, was delivered\)\.$/) } },
        ])
        // The cancel stopped the first request (it gets no answer): id 10 is free once it has stopped.
        await expect.poll(() => statusOf(runCode(10, 'reused')), { timeout: 20_000, interval: 50 }).toBe(200)
        void first.then((response) => response.body?.cancel(), () => {})
        // Neither request of the batch was run, and id 9 is free.
        expect(await streamed(await post(runCode(9, 'free'), sessionId))).toMatchObject([{ id: 9, result: { structuredContent: { value: 'free' } } }])
        expect(values).toEqual([undefined, 'reused', 'free'])
      } finally {
        stopListening()
      }
    })
  })
})
