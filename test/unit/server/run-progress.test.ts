import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ErrorCode, McpError, type Progress } from '@modelcontextprotocol/sdk/types.js'
import type { Context } from 'cordis'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { createHost, type Host } from '../../../src/host/create-host.ts'
import { reportProgress, type ProgressUpdate } from '../../../src/server/run-progress.ts'
import { connectSession, type SessionClient } from '../../helpers/mcp-session-client.ts'
import { createRoot } from '../../helpers/registry.ts'

const TOOLS = fileURLToPath(new URL('../../fixtures/serve-tools.ts', import.meta.url))

describe('progress of one call (S9.4 service mode), with a fake clock', () => {
  let root: Context
  beforeAll(async () => {
    root = await createRoot()
  })
  afterEach(() => vi.useRealTimers())

  const call = (callId: string, name: string) => root.emit('tool/call', { callId, name, arguments: {}, agent: 'a', fromCode: true })
  const result = (callId: string, name: string, isError = false) =>
    root.emit('tools/result', { callId, name, arguments: {}, agent: 'a', isError, content: [], durationMs: 1 })

  it('reports the start, then the run\'s own calls started and finished, throttled to 4 a second', () => {
    vi.useFakeTimers()
    const sent: ProgressUpdate[] = []
    const reporter = reportProgress({ ctx: root, callId: 'mcp-1.1', tool: 'run_code', send: (update) => void sent.push(update) })
    expect(sent.map((update) => update.message)).toEqual(['run_code started'])
    vi.advanceTimersByTime(300)
    // 50 calls in one burst, and one of another run (not ours).
    for (let i = 0; i < 50; i++) call(`mcp-1.1/${i}`, 'read_file')
    call('mcp-1.2/0', 'bash')
    expect(sent).toHaveLength(2)
    expect(sent[1]!.message).toBe('1 tool call started, 0 finished; last: read_file started')
    for (let i = 0; i < 50; i++) result(`mcp-1.1/${i}`, 'read_file', i === 0)
    vi.advanceTimersByTime(249)
    expect(sent).toHaveLength(2)
    vi.advanceTimersByTime(1)
    expect(sent).toHaveLength(3)
    expect(sent[2]!.message).toBe('50 tool calls started, 50 finished (1 failed); last: read_file finished')
    const progress = sent.map((update) => update.progress)
    expect([...progress].sort((a, b) => a - b)).toEqual(progress)
    expect(new Set(progress).size).toBe(progress.length)
    reporter.stop()
  })

  it('sends a heartbeat when nothing happened for heartbeatMs, and nothing after stop()', () => {
    vi.useFakeTimers()
    const sent: ProgressUpdate[] = []
    const reporter = reportProgress({ ctx: root, callId: 'mcp-2.1', tool: 'run_code', send: (update) => void sent.push(update), heartbeatMs: 10_000 })
    vi.advanceTimersByTime(9_999)
    expect(sent).toHaveLength(1)
    vi.advanceTimersByTime(1)
    expect(sent.at(-1)!.message).toBe('run_code started (run_code running for 10 s)')
    vi.advanceTimersByTime(20_000)
    expect(sent).toHaveLength(4)
    reporter.stop()
    call('mcp-2.1/0', 'read_file')
    vi.advanceTimersByTime(60_000)
    expect(sent).toHaveLength(4)
  })
})

describe('progress over MCP: a run longer than the client\'s request timeout (S9.4)', { timeout: 60_000 }, () => {
  let host: Host
  let open: SessionClient
  beforeAll(async () => {
    host = await createHost({ workspace: mkdtempSync(join(tmpdir(), 'ptc-progress-')), journal: false, toolModules: [TOOLS] })
    // A heartbeat well inside the client's timeout, so a loaded machine's slow start cannot end the call.
    open = await connectSession(host, { progressHeartbeatMs: 500 })
  }, 60_000)
  afterAll(async () => {
    await open?.close()
    await host?.dispose()
  })

  const CODE = 'for (let i = 0; i < 3; i++) await tools.sleep({ ms: 800 }); return "done"'

  it('with onprogress and resetTimeoutOnProgress, the run outlives a 1.5 s timeout and its tool calls are reported in order', async () => {
    const updates: Progress[] = []
    const answer = await open.client.callTool({ name: 'run_code', arguments: { code: CODE, typecheck: false } }, undefined, {
      timeout: 1_500,
      resetTimeoutOnProgress: true,
      onprogress: (update) => void updates.push(update),
    })
    expect(answer.isError).toBe(false)
    expect(answer.structuredContent).toMatchObject({ status: 'ok', value: 'done', toolCalls: 3 })
    expect((answer.structuredContent as { durationMs: number }).durationMs).toBeGreaterThan(1_500)
    const messages = updates.map((update) => update.message)
    expect(messages[0]).toBe('run_code started')
    expect(messages).toContain('1 tool call started, 0 finished; last: sleep started')
    expect(messages).toContain('2 tool calls started, 1 finished; last: sleep started')
    // The last finish may fall in the throttle window when the run ends: it is not sent after the answer.
    expect(messages.some((message) => message?.startsWith('3 tool calls started'))).toBe(true)
    const progress = updates.map((update) => update.progress)
    expect([...progress].sort((a, b) => a - b)).toEqual(progress)
  })

  it('without progress the same client gives up at its timeout (what a client sees without this)', async () => {
    const call = open.client.callTool({ name: 'run_code', arguments: { code: CODE, typecheck: false } }, undefined, { timeout: 1_500 })
    await expect(call).rejects.toSatisfy((error) => error instanceof McpError && error.code === ErrorCode.RequestTimeout)
  })
})
