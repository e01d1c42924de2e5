import { type ChildProcessWithoutNullStreams, execFileSync, spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BIN, SERVE_TOOLS, stdioClient, type RunValue } from './serve-helpers.ts'

/** The JSON-RPC initialize request a raw client sends first. */
const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } }

/** `ptc serve --stdio` in a fresh workspace, spoken to line by line; `output` holds what it has written so far. */
function rawStdioServer(prefix: string): { child: ChildProcessWithoutNullStreams; output: { stdout: string; stderr: string } } {
  const workspace = mkdtempSync(join(tmpdir(), prefix))
  const child = spawn(process.execPath, [BIN, 'serve', '--stdio', '--workspace', workspace, '--checkers', '1'], { stdio: ['pipe', 'pipe', 'pipe'] })
  const output = { stdout: '', stderr: '' }
  child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk))
  child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk))
  return { child, output }
}

describe('ptc serve --stdio with the SDK client (S9.1–S9.4)', { timeout: 30_000 }, () => {
  let client: Client
  beforeAll(async () => {
    const workspace = mkdtempSync(join(tmpdir(), 'ptc-serve-stdio-'))
    // One run at a time: the run after a cancelled one only starts if the cancel freed its slot;
    // so one checker is enough (and the test below checks that --checkers is honoured).
    client = await stdioClient(['--workspace', workspace, '--tools', SERVE_TOOLS, '--max-concurrent-runs', '1', '--checkers', '1'])
  }, 60_000)
  afterAll(() => client?.close())

  it('lists run_code, whose description carries the generated declarations', async () => {
    const { tools } = await client.listTools()
    const runCode = tools.find((tool) => tool.name === 'run_code')
    expect(runCode?.description).toContain('declare const tools: {')
    expect(runCode?.description).toContain('echo(args: ')
    expect(tools.map((tool) => tool.name)).not.toContain('echo')
  })

  it('a script that calls a tool returns its value as structuredContent (S9.2)', async () => {
    const result = await client.callTool({ name: 'run_code', arguments: { code: 'const r = await tools.echo({ text: "hi" }); return { echoed: r.text, n: 2 }' } })
    expect(result.isError).toBe(false)
    expect(result.structuredContent).toMatchObject({ status: 'ok', value: { echoed: 'hi', n: 2 }, toolCalls: 1 })
    expect(JSON.stringify(result.content)).toContain('echoed')
  })

  it('S9.1 --checkers 1 starts one type-checking worker with the server, not the default two', async () => {
    const result = await client.callTool({ name: 'run_code', arguments: { code: 'return 1' } })
    expect(result.isError).toBe(false)
    const server = (client.transport as { pid?: number | null } | undefined)?.pid
    expect(server).toBeTypeOf('number')
    const checkers = () => execFileSync('ps', ['-o', 'args=', '--ppid', String(server)], { encoding: 'utf8' }).split('\n').filter((args) => /checker/.test(args)).length
    // Polled: on a loaded machine a checker that could not start from its snapshot is replaced by
    // one from the module entry, and the two are both listed for a moment (a full-suite run saw 2).
    await expect.poll(checkers, { timeout: 10_000, interval: 100 }).toBe(1)
  })

  it('a script with a type error is status type-error, and no tool is called', async () => {
    const result = await client.callTool({ name: 'run_code', arguments: { code: 'await tools.echo({ text: 1 }); return 1' } })
    const value = result.structuredContent as RunValue & { diagnostics: unknown[]; toolCalls: number }
    expect(value.status).toBe('type-error')
    expect(value.toolCalls).toBe(0)
    expect(value.diagnostics.length).toBeGreaterThan(0)
  })

  it('cancelling a long run ends it promptly and frees its slot for the next run', async () => {
    const stop = new AbortController()
    const long = client.callTool({ name: 'run_code', arguments: { code: 'await new Promise(() => {}); return 1', timeoutMs: 120_000 } }, undefined, { signal: stop.signal })
    setTimeout(() => stop.abort(), 300)
    await expect(long).rejects.toThrow()
    // The slot is free: the next run is answered, long before the cancelled run's 120 s deadline.
    const next = await client.callTool({ name: 'run_code', arguments: { code: 'return "after"' } }, undefined, { timeout: 60_000 })
    expect(next.structuredContent).toMatchObject({ status: 'ok', value: 'after' })
  })
})

describe('ptc serve --stdio and lines that are not JSON-RPC', { timeout: 30_000 }, () => {
  it('S9.4 says on output.stderr that it skipped a bad line, answers each line it cannot read with the JSON-RPC error for it, and answers the next message; a line over the SDK limit is skipped and answered, and the session goes on', async () => {
    const { child, output } = rawStdioServer('ptc-serve-stdio-bad-')
    // The server stops reading once a line is too long: the rest of that write may meet a closed pipe.
    child.stdin.on('error', () => {})
    const badLines = ['not json', '{"a":1}', '{"jsonrpc":"2.0","id":7,"method":42}', '{"jsonrpc":"2.0","id":17}', '{"jsonrpc":"2.0","id":null,"method":"tools/list"}', '[{"jsonrpc":"2.0","id":19,"method":"tools/list"}]', '42', '{"jsonrpc":"2.0","id":23,"method":"tools/call","params":{"name":"run_code","arguments":{"code":"return 6"},"_meta":{"progressToken":{"x":1}}}}']
    child.stdin.write(`${badLines.join('\n')}\n${JSON.stringify(INITIALIZE)}\n`)
    while (output.stdout.split('\n').length < 10) await new Promise((resolve) => setTimeout(resolve, 20))
    // JSON-RPC's error for each line it cannot read, with its id when it has a usable one (null
    // when it has none, as for '{"a":1}', no message at all): no caller waits forever. A
    // notification with bad params is never answered.
    const answers = output.stdout.split('\n').slice(0, 9).map((line) => JSON.parse(line))
    expect(answers.map(({ id, error }) => [id, error?.code])).toEqual([[null, -32700], [null, -32600], [7, -32600], [17, -32600], [null, -32600], [null, -32600], [null, -32600], [23, -32600], [1, undefined]])
    expect(answers[1].error.message).toMatch(/^Invalid Request: not a JSON-RPC 2\.0 message/)
    expect(answers[2].error.message).toMatch(/^Invalid Request: not a JSON-RPC 2\.0 request/)
    expect(answers[4].error.message).toMatch(/^Invalid Request: the id must be a string or an integer \(MCP: never null\)/)
    expect(answers[5].error.message).toBe('Invalid Request: MCP has no JSON-RPC batches; send one message a line')
    expect(answers[6].error.message).toMatch(/^Invalid Request: a message is a JSON object/)
    // A request with one wrong field is told which.
    expect(answers[7]).toMatchObject({ id: 23, error: { code: -32600, message: 'Invalid Request: params._meta.progressToken must be a string or a number' } })
    expect(output.stderr).toMatch(/^ptc serve: answered a request that is not valid: params\._meta\.progressToken must be a string or a number$/m)
    expect(answers[8]).toMatchObject({ jsonrpc: '2.0', id: 1, result: { serverInfo: { name: 'ptc-runner' } } })
    expect(output.stderr).toMatch(/^ptc serve: skipped a line on stdin that is not a JSON-RPC message \(one JSON object a line\): Unexpected token .*"not json" is not valid JSON$/m)
    expect(output.stderr).toMatch(/^ptc serve: skipped a line on stdin that is not a JSON-RPC message \(one JSON object a line\): it is JSON, but not a JSON-RPC 2\.0 request, notification or response$/m)
    // A line over the 10 MiB limit is skipped and answered; the session goes on (it used to close,
    // leaving the calls in flight unanswered). Written in pieces, as a pipe delivers it.
    const before = output.stdout.split('\n').length
    child.stdin.write('{"jsonrpc":"2.0","method":"notifications/bad","params":{}}\n')
    for (let piece = 0; piece < 11; piece++) child.stdin.write('x'.repeat(2 ** 20))
    child.stdin.write(`\n${JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' })}\n`)
    while (output.stdout.split('\n').length < before + 2) await new Promise((resolve) => setTimeout(resolve, 20))
    const [skipped, pong] = output.stdout.split('\n').slice(before - 1, before + 1).map((line) => JSON.parse(line))
    expect(skipped).toMatchObject({ id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request: a line longer than 10485760 bytes .* was skipped/) } })
    expect(pong).toMatchObject({ id: 2, result: {} })
    expect(output.stderr).toContain("ptc serve: skipped a line on stdin longer than 10485760 bytes, the MCP SDK's limit for one message over stdio; the session goes on")
    // A notification whose params fail the SDK's schema is ignored with one readable line, not zod's issue list.
    child.stdin.write('{"jsonrpc":"2.0","method":"notifications/cancelled"}\n')
    while (!output.stderr.includes('ignored a notification')) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(output.stderr).toMatch(/^ptc serve: ignored a notification whose params are not valid \(params: [^\n]*\); the session goes on$/m)
    // A request too long to read is answered with its id, so the client's call ends with the
    // error instead of waiting for its own timeout: the TypeScript SDK writes the id last.
    const after = output.stdout.split('\n').length
    const huge = { method: 'tools/call', params: { name: 'run_code', arguments: { code: `return 1 // ${'a'.repeat(11 * 2 ** 20)}` } }, jsonrpc: '2.0', id: 77 }
    const text = JSON.stringify(huge)
    for (let at = 0; at < text.length; at += 2 ** 20) child.stdin.write(text.slice(at, at + 2 ** 20))
    child.stdin.write(`\n${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' })}\n`)
    while (output.stdout.split('\n').length < after + 2) await new Promise((resolve) => setTimeout(resolve, 20))
    const [refused, pong3] = output.stdout.split('\n').slice(after - 1, after + 1).map((line) => JSON.parse(line))
    expect(refused).toMatchObject({ id: 77, error: { code: -32600, message: expect.stringMatching(/^Invalid Request: a line longer than 10485760 bytes/) } })
    expect(pong3).toMatchObject({ id: 3, result: {} })
    child.stdin.end()
    const [code] = await once(child, 'exit')
    expect(code).toBe(0)
  })
})

describe('ptc serve --stdio and requests with invalid params', { timeout: 30_000 }, () => {
  // One session for both cases (one server start less): each sends requests with ids of its own
  // and reads only what the server wrote after them, so neither sees the other's answers.
  let server: ReturnType<typeof rawStdioServer>
  beforeAll(async () => {
    server = rawStdioServer('ptc-serve-stdio-params-')
    server.child.stdin.write([INITIALIZE, { jsonrpc: '2.0', method: 'notifications/initialized' }].map((message) => `${JSON.stringify(message)}\n`).join(''))
    while (server.output.stdout.split('\n').length < 2) await new Promise((resolve) => setTimeout(resolve, 20))
  }, 60_000)
  afterAll(async () => {
    if (!server) return
    const exited = server.child.exitCode === null && server.child.signalCode === null ? once(server.child, 'exit') : undefined
    server.child.stdin.end()
    await exited
  })
  /** The stdout lines and the stderr the server writes from now on. */
  const since = () => {
    const { output } = server
    const [lines, at] = [output.stdout.split('\n').length - 1, output.stderr.length]
    return { stdout: () => output.stdout.split('\n').slice(lines, -1), stderr: () => output.stderr.slice(at) }
  }

  it('S9.4 a notifications/cancelled without a requestId is reported on output.stderr in one line naming it and what is wrong, and never answered', async () => {
    const { child } = server
    const after = since()
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: {} })}\n`)
    for (let waited = 0; waited < 5_000 && !after.stderr().includes('notifications/cancelled'); waited += 20) await new Promise((resolve) => setTimeout(resolve, 20))
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 12, method: 'ping' })}\n`)
    while (after.stdout().length < 1) await new Promise((resolve) => setTimeout(resolve, 20))
    expect(after.stderr()).toMatch(/^ptc serve: ignored notifications\/cancelled: params\.requestId is missing, so there is no request to cancel; the session goes on$/m)
    expect(after.stdout().map((line) => (JSON.parse(line) as { id: number }).id)).toEqual([12])
  })

  it('S9.4 a tools/call without params or with arguments that are no object, and a tools/list with a numeric cursor, get -32602 (invalid params) saying in one line what was wrong, not -32603 (internal error) with a zod dump', async () => {
    const { child } = server
    const after = since()
    const requests = [
      { jsonrpc: '2.0', id: 22, method: 'tools/call' },
      { jsonrpc: '2.0', id: 23, method: 'tools/call', params: { name: 'run_code', arguments: 'return 1' } },
      { jsonrpc: '2.0', id: 24, method: 'tools/list', params: { cursor: 5 } },
    ]
    child.stdin.write(requests.map((message) => `${JSON.stringify(message)}\n`).join(''))
    while (after.stdout().length < 3) await new Promise((resolve) => setTimeout(resolve, 20))
    const answers = after.stdout().map((line) => JSON.parse(line) as { id: number; error?: { code: number; message: string } })
    expect(answers.map(({ id, error }) => [id, error?.code])).toEqual([[22, -32602], [23, -32602], [24, -32602]])
    expect(answers[0]!.error!.message).toBe('Invalid params for tools/call: params: Invalid input: expected object, received undefined.')
    expect(answers[1]!.error!.message).toBe('Invalid params for tools/call: params.arguments: Invalid input: expected record, received string.')
    expect(answers[2]!.error!.message).toBe('Invalid params for tools/list: params.cursor: Invalid input: expected string, received number.')
  })
})
