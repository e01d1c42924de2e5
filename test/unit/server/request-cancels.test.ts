/**
 * Which request an MCP `notifications/cancelled` stops (S1.3: `exec.signal` is the cancellation
 * signal; S9.4: the MCP session is the transport of the calls). A cancel applies to the request
 * with its id in flight when the cancel is handled, even one whose handler has not run yet; a
 * cancel for an id not in flight (answered, unknown, never sent) is ignored, so it never stops a
 * later request that reuses the id.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../../../src/host/create-host.ts'
import { refuseDuplicateIds } from '../../../src/mcp/in-flight-ids.ts'
import { openSession } from '../../../src/server/mcp-session.ts'
import { createRunLimiter } from '../../../src/server/run-limiter.ts'

const TOOLS = fileURLToPath(new URL('../../fixtures/serve-tools.ts', import.meta.url))

interface Answer {
  id: unknown
  result?: { structuredContent?: unknown; tools?: unknown }
  error?: unknown
}

describe('what a notifications/cancelled stops (S1.3, S9.4)', { timeout: 60_000 }, () => {
  let workspace: string
  let host: Host
  /** Each `sleep` call's `ms` and how it ended ('ok' or its error kind), in order. */
  const sleeps: [number, string][] = []
  beforeAll(async () => {
    workspace = mkdtempSync(join(tmpdir(), 'ptc-cancels-'))
    host = await createHost({ workspace, journal: false, toolModules: [TOOLS] })
    host.ctx.on('tools/result', (result) => void (result.name === 'sleep' && sleeps.push([(result.arguments as { ms: number }).ms, result.error?.kind ?? 'ok'])))
  }, 60_000)
  afterAll(async () => {
    await host.dispose()
    rmSync(workspace, { recursive: true, force: true })
  })

  /**
   * A session (every tool exposed) with a raw client on an in-memory transport that claims request
   * ids as `ptc serve`'s transports do (`refuseDuplicateIds`) and delivers each message as it is
   * sent: two messages sent in one tick reach the SDK before either handler runs.
   */
  async function rawSession() {
    const session = await openSession(host.ctx, { exposeTools: true, limiter: createRunLimiter(4), journalDir: false })
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    refuseDuplicateIds(serverSide)
    await session.server.connect(serverSide)
    const answers: Answer[] = []
    clientSide.onmessage = (message) => void ('id' in message && answers.push(message as Answer))
    await clientSide.start()
    const send = (message: object) => void clientSide.send({ jsonrpc: '2.0', ...message } as never)
    const answersTo = (id: unknown) => answers.filter((answer) => answer.id === id)
    send({ id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } })
    send({ method: 'notifications/initialized' })
    await expect.poll(() => answersTo(0)).toHaveLength(1)
    let pings = 0
    return {
      answersTo,
      sleep: (id: number | string, ms: number) => send({ id, method: 'tools/call', params: { name: 'sleep', arguments: { ms } } }),
      cancel: (requestId: number | string) => send({ method: 'notifications/cancelled', params: { requestId, reason: 'test' } }),
      send,
      /** A ping answered: every message sent before it has been handled as far as its handler's start. */
      settled: async () => {
        const id = `ping-${++pings}`
        send({ id, method: 'ping' })
        await expect.poll(() => answersTo(id)).toHaveLength(1)
      },
      close: async () => {
        await clientSide.close()
        await session.close()
      },
    }
  }

  it('S1.3 S9.4 a cancel reaches a request that reuses an answered id', async () => {
    const client = await rawSession()
    try {
      client.sleep(9, 0)
      await expect.poll(() => client.answersTo(9)).toMatchObject([{ result: { structuredContent: { slept: 0 } } }])
      client.sleep(9, 50_009)
      await client.settled()
      client.cancel(9)
      await expect.poll(() => sleeps.filter(([ms]) => ms === 50_009), { timeout: 20_000 }).toEqual([[50_009, 'cancelled']])
      await client.settled()
      // A cancelled request gets no answer (MCP "Cancellation"): 9's only answer is its first request's.
      expect(client.answersTo(9)).toHaveLength(1)
    } finally {
      await client.close()
    }
  })

  it('S1.3 S9.4 a cancel that came with its request, before its handler ran, stops that request alone: it gets no answer, and a later request reusing the id runs', async () => {
    const client = await rawSession()
    try {
      client.sleep(7, 50_007)
      client.cancel(7)
      await expect.poll(() => sleeps.filter(([ms]) => ms === 50_007), { timeout: 20_000 }).toEqual([[50_007, 'cancelled']])
      await client.settled()
      expect(client.answersTo(7)).toEqual([])
      client.sleep(7, 7)
      await expect.poll(() => client.answersTo(7)).toMatchObject([{ result: { structuredContent: { slept: 7 } } }])
    } finally {
      await client.close()
    }
  })

  it('S1.3 S9.4 a cancel that raced with a tools/list does not cancel a later tools/call reusing its id', async () => {
    const client = await rawSession()
    try {
      client.send({ id: 5, method: 'tools/list' })
      client.cancel(5)
      await expect.poll(() => client.answersTo(5)).toHaveLength(1)
      client.sleep(5, 5)
      await expect.poll(() => client.answersTo(5).slice(1)).toMatchObject([{ result: { structuredContent: { slept: 5 } } }])
    } finally {
      await client.close()
    }
  })

  it('S1.3 S9.4 a cancel for an id not in flight (never sent, or answered) is ignored: a later request with that id runs to its answer', async () => {
    const client = await rawSession()
    try {
      client.cancel(6)
      client.cancel('six')
      await client.settled()
      client.sleep(6, 6)
      client.sleep('six', 6)
      await expect.poll(() => [...client.answersTo(6), ...client.answersTo('six')]).toMatchObject([{ result: { structuredContent: { slept: 6 } } }, { result: { structuredContent: { slept: 6 } } }])
      // Answered, then cancelled late: the next request with the id runs.
      client.cancel(6)
      client.sleep(6, 60)
      await expect.poll(() => client.answersTo(6).slice(1)).toMatchObject([{ result: { structuredContent: { slept: 60 } } }])
    } finally {
      await client.close()
    }
  })
})
