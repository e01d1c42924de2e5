import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { ReadBuffer } from '@modelcontextprotocol/sdk/shared/stdio.js'
import { PassThrough, Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { LineBuffer, stdioClientTransport, stdioServerTransport, useLineBuffer } from '../../../src/mcp/line-buffer.ts'

/** Everything a reader gives for `chunks`: each message, or the error a line threw, in order. */
function readAll(reader: { append(chunk: Buffer): void; readMessage(): unknown }, chunks: Buffer[]): unknown[] {
  const seen: unknown[] = []
  for (const chunk of chunks) {
    reader.append(chunk)
    for (;;) {
      try {
        const message = reader.readMessage()
        if (message === null) break
        seen.push(message)
      } catch (error) {
        seen.push(`${(error as Error).name}`)
      }
    }
  }
  return seen
}

/** `bytes` cut into pieces of the sizes in `cuts`, repeated. */
function cut(bytes: Buffer, cuts: number[]): Buffer[] {
  const chunks: Buffer[] = []
  for (let at = 0, index = 0; at < bytes.length; index++) {
    const size = cuts[index % cuts.length]!
    chunks.push(bytes.subarray(at, at + size))
    at += size
  }
  return chunks
}

const STREAM = Buffer.from(
  [
    JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    `${JSON.stringify({ jsonrpc: '2.0', id: 2, result: { text: 'ünïcödé 🎉 split across chunks' } })}\r`,
    'not json',
    JSON.stringify({ a: 1 }),
    ' \t\r',
    JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  ].join('\n') + '\n',
)

describe('reading MCP stdio lines in linear time (S9.4; the SDK ReadBuffer copies all it holds per chunk)', () => {
  it('gives what the SDK ReadBuffer gives, message for message and error for error, however the stream is cut; blank lines are skipped, not errors', () => {
    // The SDK reports the blank line as a SyntaxError; LineBuffer skips it.
    const expected = readAll(new ReadBuffer(), [STREAM]).filter((_, index) => index !== 4)
    expect(expected).toHaveLength(5)
    for (const cuts of [[1], [2, 3], [7], [64], [STREAM.length], [5, 1, 13, 40]]) {
      expect(readAll(new LineBuffer(), cut(STREAM, cuts))).toEqual(expected)
    }
  })

  it('a line longer than the limit throws the SDK error text the transports report, and what it held is forgotten', () => {
    const buffer = new LineBuffer(100)
    buffer.append(Buffer.from('x'.repeat(60)))
    expect(() => buffer.append(Buffer.from('y'.repeat(60)))).toThrow('ReadBuffer exceeded maximum size of 100 bytes')
    buffer.append(Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', id: 3, result: {} })}\n`))
    expect(buffer.readMessage()).toEqual({ jsonrpc: '2.0', id: 3, result: {} })
    // A whole line arriving in one chunk is held to the same limit.
    expect(() => new LineBuffer(10).append(Buffer.from(`${'z'.repeat(11)}\n`))).toThrow('maximum size of 10 bytes')
    // A line of exactly the limit is read (and here refused as no JSON-RPC message, as the SDK does).
    const exact = new LineBuffer(2)
    expect(() => exact.append(Buffer.from('{}\n'))).not.toThrow()
    expect(() => exact.readMessage()).toThrow(/invalid|expected/i)
  })

  it('an answer with an id that is not a valid response becomes an error response for that id; other invalid lines still throw', () => {
    const buffer = new LineBuffer()
    buffer.append(Buffer.from('{"jsonrpc":"2.0","id":7,"result":null}\n{"jsonrpc":"2.0","id":"x","error":{"code":1}}\n{"jsonrpc":"2.0","id":8,"method":5}\n'))
    expect(buffer.readMessage()).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32603, message: expect.stringContaining('"result":null') } })
    expect(buffer.readMessage()).toMatchObject({ jsonrpc: '2.0', id: 'x', error: { code: -32603 } })
    expect(() => buffer.readMessage()).toThrow()
  })

  it('clear forgets a partial line and lines not yet read', () => {
    const buffer = new LineBuffer()
    buffer.append(Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', id: 1, result: {} })}\n{"jsonrpc":`))
    buffer.clear()
    buffer.append(Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', id: 2, result: {} })}\n`))
    expect(buffer.readMessage()).toEqual({ jsonrpc: '2.0', id: 2, result: {} })
    expect(buffer.readMessage()).toBeNull()
  })

  it('S11 serve --stdio stops reading requests while the client does not read its answers, and reads on once stdout drains', async () => {
    const stdin = new PassThrough()
    let release: (() => void) | undefined
    // A client that reads nothing until told to: every write waits, so stdout stays over its mark.
    const stdout = new Writable({ highWaterMark: 1024, write: (_chunk, _encoding, done) => void (release = done) })
    const server = stdioServerTransport(stdin, stdout)
    const read: unknown[] = []
    server.onmessage = (message) => {
      read.push((message as { id: unknown }).id)
      void server.send({ jsonrpc: '2.0', id: (message as { id: number }).id, result: { text: 'x'.repeat(4096) } })
    }
    await server.start()
    const request = (id: number) => `${JSON.stringify({ jsonrpc: '2.0', id, method: 'ping' })}\n`
    stdin.write(request(1))
    await new Promise((resolve) => setImmediate(resolve))
    expect(read).toEqual([1])
    expect(stdin.isPaused()).toBe(true)
    for (let id = 2; id <= 5; id++) stdin.write(request(id))
    await new Promise((resolve) => setImmediate(resolve))
    expect(read).toEqual([1]) // held on stdin, not run and buffered
    // The client reads: each answer drains stdout, and the next request is read.
    for (let turn = 0; turn < 20 && read.length < 5; turn++) {
      release?.()
      await new Promise((resolve) => setImmediate(resolve))
    }
    expect(read).toEqual([1, 2, 3, 4, 5])
    await server.close()
  })

  it('S11 sends made while stdout is full wait for one drain listener, not one each (Node warned past 10)', async () => {
    let release: (() => void) | undefined
    const stdout = new Writable({ highWaterMark: 16, write: (_chunk, _encoding, done) => void (release = done) })
    const server = stdioServerTransport(new PassThrough(), stdout)
    const sent = Array.from({ length: 30 }, (_, id) => server.send({ jsonrpc: '2.0', id, result: {} }))
    expect(stdout.listenerCount('drain')).toBe(1)
    for (let turn = 0; turn < 100 && stdout.writableLength > 0; turn++) {
      release?.()
      await new Promise((resolve) => setImmediate(resolve))
    }
    await Promise.all(sent)
    expect(stdout.listenerCount('drain')).toBe(0)
    await server.close()
  })

  it('S11 serve --stdio replaces an answer over the 10 MiB a client reads by one saying so, for the same request', async () => {
    const lines: string[] = []
    const stdout = new Writable({ write: (chunk, _encoding, done) => void (lines.push(String(chunk)), done()) })
    const server = stdioServerTransport(new PassThrough(), stdout)
    // Control characters: 2.5 M of them are 15 MB as JSON escapes.
    await server.send({ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: 'ok' }], structuredContent: { value: '\u0001'.repeat(2_500_000) } } })
    await server.send({ jsonrpc: '2.0', id: 4, result: { tools: [{ name: 'x'.repeat(11 * 2 ** 20) }] } })
    await server.send({ jsonrpc: '2.0', id: 5, result: { content: [{ type: 'text', text: 'small' }] } })
    const [tooBig, tooBigList, small] = lines.map((line) => JSON.parse(line))
    expect(tooBig).toEqual({ jsonrpc: '2.0', id: 3, result: { content: [{ type: 'text', text: expect.stringMatching(/^ptc serve: this answer is 14\.3 MiB of JSON, over the 10 MiB an MCP client reads/) }], isError: true } })
    expect(tooBigList).toMatchObject({ jsonrpc: '2.0', id: 4, error: { code: -32603, message: expect.stringContaining('over the 10 MiB') } })
    expect(small).toEqual({ jsonrpc: '2.0', id: 5, result: { content: [{ type: 'text', text: 'small' }] } })
  })

  it('S9.4 serve --stdio: the refusal of an unreadable line with the id of a request in flight does not free that id', async () => {
    const stdin = new PassThrough()
    const lines: { id: unknown; error?: { message: string } }[] = []
    const stdout = new Writable({ write: (chunk, _encoding, done) => void (lines.push(...String(chunk).trim().split('\n').map((line) => JSON.parse(line))), done()) })
    const server = stdioServerTransport(stdin, stdout)
    const delivered: unknown[] = []
    server.onmessage = (message) => void delivered.push((message as { id: unknown }).id)
    await server.start()
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'ping' })}\n`)
    // Invalid (params not an object): refused by the line reader, with id 5.
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'ping', params: 1 })}\n`)
    stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 5, method: 'ping' })}\n`)
    await new Promise((resolve) => setImmediate(resolve))
    expect(delivered).toEqual([5])
    expect(lines.map((line) => line.error?.message.slice(0, 40))).toEqual([expect.stringMatching(/^Invalid Request: params/), expect.stringMatching(/^Invalid Request: request id 5 is still/)])
    await server.close()
  })

  it("the stdio transports ptc makes (imported servers', serve --stdio's) read with a LineBuffer; fails when an SDK upgrade renames the buffer's field", () => {
    const client = stdioClientTransport({ command: process.execPath })
    const server = stdioServerTransport(new PassThrough(), new PassThrough())
    expect(client).toBeInstanceOf(StdioClientTransport)
    expect(server).toBeInstanceOf(StdioServerTransport)
    for (const transport of [client, server]) expect((transport as unknown as { _readBuffer: unknown })._readBuffer).toBeInstanceOf(LineBuffer)
    expect(useLineBuffer(new StdioServerTransport(new PassThrough(), new PassThrough()))).toBe(true)
    // The client's maxBufferSize parameter is the limit, as in the SDK.
    const limited = stdioClientTransport({ command: process.execPath, maxBufferSize: 16 }) as unknown as { _readBuffer: LineBuffer }
    expect(() => limited._readBuffer.append(Buffer.from('x'.repeat(17)))).toThrow('ReadBuffer exceeded maximum size of 16 bytes')
  })
})

describe('LineBuffer skipping lines too long to read (S9.4, ptc serve --stdio)', () => {
  const big = (id: string) => `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"x":"${'a'.repeat(300)}"}}`
  const tail = (id: string) => `{"method":"tools/call","params":{"x":"${'a'.repeat(300)}"},"jsonrpc":"2.0","id":${id}}`
  const ping = (id: number) => `{"jsonrpc":"2.0","id":${id},"method":"ping"}`
  /** The ids the refusals carry and what is read, for `chunks` through a 200-byte buffer that skips long lines. */
  function read(chunks: string[]): { refused: unknown[]; read: unknown[] } {
    const refused: unknown[] = []
    const buffer = new LineBuffer(200, (refusal) => refused.push(refusal.id), true)
    const read: unknown[] = []
    for (const chunk of chunks) buffer.append(Buffer.from(chunk))
    for (;;) {
      try {
        const message = buffer.readMessage()
        if (message === null) break
        read.push((message as { id?: unknown }).id)
      } catch {
        read.push('refused')
      }
    }
    return { refused, read }
  }

  it('S9.4 a long request is refused with its id however the line is cut into chunks (whole, after 10 bytes, in three, with CRLF), and the next line is read', () => {
    const line = big('7')
    for (const chunks of [[`${line}\n${ping(1)}\n`], [line.slice(0, 10), `${line.slice(10)}\n${ping(1)}\n`], [line.slice(0, 150), line.slice(150, 250), `${line.slice(250)}\r\n${ping(1)}\r\n`], [line.slice(0, 150), line.slice(150), `\n${ping(1)}\n`]]) {
      expect(read(chunks), JSON.stringify(chunks.map((chunk) => chunk.length))).toEqual({ refused: [7], read: ['refused', 1] })
    }
    // The TypeScript SDK's order (id last), whole or cut.
    expect(read([`${tail('"t"')}\n`])).toEqual({ refused: ['t'], read: ['refused'] })
    expect(read([tail('9').slice(0, 50), `${tail('9').slice(50)}\n`])).toEqual({ refused: [9], read: ['refused'] })
  })

  it('S9.4 an answer too long to read gets no id (answers are never answered), and clear() while skipping forgets the line', () => {
    expect(read([`{"jsonrpc":"2.0","id":3,"result":{"x":"${'b'.repeat(300)}"}}\n`]).refused).toEqual([null])
    const buffer = new LineBuffer(200, () => {}, true)
    buffer.append(Buffer.from(big('5').slice(0, 250)))
    buffer.clear()
    buffer.append(Buffer.from(`${ping(2)}\n`))
    expect(buffer.readMessage()).toMatchObject({ id: 2 })
  })
})

