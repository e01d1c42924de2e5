/**
 * An approval the MCP client could not be asked for is not a refusal (SPEC S5.1, S5.3, S8.2):
 * when the elicitation fails (the client errors, does not handle it, times out, or never declared
 * elicitation), the call is still denied, but its error says the approval could not be obtained,
 * why (the client's error), and what to do; a dismissed prompt (cancel) is no answer either; only
 * a person's "no" (decline, allow: false) reads "refused".
 */
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js'
import { ElicitRequestSchema, type RequestId } from '@modelcontextprotocol/sdk/types.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../../../src/host/create-host.ts'
import { lateApprovalAnswer } from '../../../src/server/elicit-approval.ts'
import { openSession } from '../../../src/server/mcp-session.ts'
import { createRunLimiter } from '../../../src/server/run-limiter.ts'
import { connectSession, type ConnectOptions, type SessionClient } from '../../helpers/mcp-session-client.ts'

const TOOLS = fileURLToPath(new URL('../../fixtures/serve-tools.ts', import.meta.url))

describe('an approval that could not be obtained is not a refusal (S5.1, S8.2)', { timeout: 60_000 }, () => {
  let host: Host
  const open: SessionClient[] = []
  beforeAll(async () => {
    host = await createHost({ workspace: mkdtempSync(join(tmpdir(), 'ptc-elicit-')), journal: false, toolModules: [TOOLS] })
  }, 60_000)
  afterAll(async () => {
    for (const connected of open) await connected.close()
    await host.dispose()
  })

  /** The outcome of the first `tool/approval` record in `agent`'s session journal. */
  function approvalOutcome(agent: string): string | undefined {
    const journals = join(host.workspace, 'journal')
    const journal = readFileSync(join(journals, readdirSync(journals).find((file) => file.endsWith(`-${agent}.jsonl`))!), 'utf8')
    return journal.split('\n').filter(Boolean).map((line) => JSON.parse(line) as { type: string; outcome?: string }).find((record) => record.type === 'tool/approval')?.outcome
  }

  async function guardedError(options: ConnectOptions): Promise<{ text: string; agent: string }> {
    const connected = await connectSession(host, { exposeTools: true, ...options })
    open.push(connected)
    const result = await connected.client.callTool({ name: 'guarded', arguments: {} })
    expect(result.isError).toBe(true)
    return { text: (result.content as { text: string }[]).map((block) => block.text).join(''), agent: connected.session.agent }
  }

  it("S8.2 the client's elicitation fails: the error says the approval could not be obtained, gives the client's error and what to do, and the journal records no refusal", async () => {
    const { text, agent } = await guardedError({
      elicit: () => {
        throw new Error('the prompt window crashed')
      },
    })
    expect(text).toMatch(/^Error: This call needs approval \(test policy\), but the approval could not be obtained, so the call was not made \(nobody refused it\): the MCP client's elicitation request failed \(MCP error -32603: the prompt window crashed\)\. Make the call again/)
    expect(text).not.toMatch(/Approval was refused/)
    expect(approvalOutcome(agent)).toBe('unavailable')
  })

  it('S8.2 nobody answers the prompt within the approval timeout: the error says so, with the timeout', async () => {
    const { text } = await guardedError({ approvalTimeoutMs: 300, elicit: (signal) => new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('withdrawn')))) })
    expect(text).toMatch(/but the approval could not be obtained, so the call was not made \(nobody refused it\): nobody answered the approval prompt \(an MCP elicitation request\) within 300 ms\. Answer the prompt when the MCP client shows it, then make the call again\.$/)
  })

  it('S8.2 a client that declares elicitation but does not handle it: the error names its method-not-found answer', async () => {
    const session = await openSession(host.ctx, { exposeTools: true, limiter: createRunLimiter(4), journalDir: false })
    const client = new Client({ name: 'no-handler', version: '1' }, { capabilities: { elicitation: {} } })
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await session.server.connect(serverSide)
    await client.connect(clientSide)
    open.push({ session, client, close: async () => (await client.close(), await session.close()) })
    const result = await client.callTool({ name: 'guarded', arguments: {} })
    expect(result.isError).toBe(true)
    expect(JSON.stringify(result.content)).toMatch(/the approval could not be obtained, so the call was not made \(nobody refused it\): the MCP client does not handle elicitation requests, although it declared the capability \(it answered: MCP error -32601: Method not found\)\. Use an MCP client that can show elicitation prompts/)
  })

  it('S8.2 an answer to an approval prompt the server stopped waiting for is explained as a late answer, not an unknown message id; other unknown ids are not', async () => {
    const session = await openSession(host.ctx, { exposeTools: true, limiter: createRunLimiter(4), journalDir: false, approvalTimeoutMs: 300 })
    const errors: Error[] = []
    session.server.onerror = (error) => errors.push(error)
    const client = new Client({ name: 'late', version: '1' }, { capabilities: { elicitation: {} } })
    let promptId: RequestId | undefined
    client.setRequestHandler(ElicitRequestSchema, (_request, extra) => {
      promptId = extra.requestId
      return new Promise((resolve) => extra.signal.addEventListener('abort', () => resolve({ action: 'cancel' })))
    })
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair()
    await session.server.connect(serverSide)
    await client.connect(clientSide)
    open.push({ session, client, close: async () => (await client.close(), await session.close()) })
    const result = await client.callTool({ name: 'guarded', arguments: {} })
    expect(JSON.stringify(result.content)).toMatch(/nobody answered the approval prompt/)
    await clientSide.send({ jsonrpc: '2.0', id: promptId!, result: { action: 'accept', content: { allow: true } } })
    await clientSide.send({ jsonrpc: '2.0', id: 9_999, result: {} })
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(errors).toHaveLength(2)
    expect(lateApprovalAnswer(session.server, errors[0]!)).toBe(`a late answer to approval prompt ${promptId} arrived after the server stopped waiting for it (the call was not made); ignored`)
    expect(lateApprovalAnswer(session.server, errors[1]!)).toBeUndefined()
  })

  it('S5.3 S8.2 a client without elicitation: the error says it could not be asked, not that nobody is registered', async () => {
    const { text } = await guardedError({})
    expect(text).toMatch(/but the approval could not be obtained, so the call was not made \(nobody refused it\): the MCP client did not declare the elicitation capability, so it could not be asked\. Connect with an MCP client that supports elicitation to approve such calls\.$/)
  })

  it('S8.2 an accept without the form\'s "allow" answer is no answer, not a refusal; allow: false is a refusal', async () => {
    const { text } = await guardedError({ elicit: () => ({ action: 'accept' }) })
    expect(text).toMatch(/but the approval could not be obtained, so the call was not made \(nobody refused it\): the MCP client accepted the approval prompt without its "allow" answer\. Answer the prompt's "Allow this call once" field \(yes or no\), then make the call again\.$/)
    const refused = await guardedError({ elicit: () => ({ action: 'accept', content: { allow: false } }) })
    expect(refused.text).toMatch(/^Error: Approval was refused \(test policy\)/)
  })

  it('S8.2 a dismissed prompt (cancel) is no answer, not a refusal: the call was not made, and the journal records unavailable', async () => {
    const { text, agent } = await guardedError({ elicit: () => ({ action: 'cancel' }) })
    expect(text).toMatch(/^Error: This call needs approval \(test policy\), but the approval could not be obtained, so the call was not made \(nobody refused it\): the approval dialog was dismissed without an answer\. /)
    expect(text).not.toMatch(/Approval was refused/)
    expect(approvalOutcome(agent)).toBe('unavailable')
  })

  it('S5.1 a person who declines is still a refusal', async () => {
    const { text } = await guardedError({ elicit: () => ({ action: 'decline' }) })
    expect(text).toBe('Error: Approval was refused (test policy), so the call was not made. Do not ask again for the same call: do the work another way, or ask the user what they want.')
  })
})
