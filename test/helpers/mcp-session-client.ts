/**
 * Connect an SDK client to one MCP session of a host over an in-memory transport, for the
 * service-mode unit tests.
 */
import { join } from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js'
import type { Host } from '../../src/host/create-host.ts'
import { openSession, type McpSession, type SessionOptions } from '../../src/server/mcp-session.ts'
import { createRunLimiter } from '../../src/server/run-limiter.ts'

/** A connected session and its client; `close()` closes both. */
export interface SessionClient {
  session: McpSession
  client: Client
  close(): Promise<void>
}

/** Options of {@link connectSession}: the session's, plus `elicit`, the client's answer to every elicitation (with it the client declares the elicitation capability). */
export type ConnectOptions = Partial<SessionOptions> & { elicit?: (signal: AbortSignal) => ElicitResult | Promise<ElicitResult> }

/**
 * Open a session on `host` (journals in `<workspace>/journal`; `sessionId` as the MCP session id,
 * else a made-up one) and connect a client to it.
 */
export async function connectSession(host: Host, options: ConnectOptions = {}, sessionId?: string): Promise<SessionClient> {
  const { elicit, ...sessionOptions } = options
  const session = await openSession(host.ctx, { exposeTools: false, limiter: createRunLimiter(4), journalDir: join(host.workspace, 'journal'), ...sessionOptions }, sessionId)
  const client = new Client({ name: 'test', version: '1' }, { capabilities: elicit ? { elicitation: {} } : {} })
  if (elicit) client.setRequestHandler(ElicitRequestSchema, async (_request, extra) => elicit(extra.signal))
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
  await session.server.connect(serverSide)
  await client.connect(clientSide)
  return {
    session,
    client,
    close: async () => {
      await client.close()
      await session.close()
    },
  }
}
