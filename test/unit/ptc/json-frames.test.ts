/**
 * The isolate worker channel's framing (issue 12, SPEC S9.1): JSON lines with long strings
 * carried beside them as Latin-1 or UTF-16LE bytes. Every message must come out as it went in,
 * however the bytes are cut into chunks; the header must stay smaller than what it lifts; and a
 * frame that is not what the encoder writes must stop the reader, never throw, never reach a
 * prototype.
 */
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, connect, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { FrameReader, MAX_FRAME_BYTES, MAX_LINE_BYTES, MAX_STRING_UNITS } from '../../../src/ptc/frame-reader.ts'
import { encodeFrame, LIFT_MIN_CHARS, MAX_LIFT_DEPTH, sendFrame, type Frame } from '../../../src/ptc/json-frames.ts'

const long = (seed: string) => `${seed}"\\\n é 😀 `.repeat(Math.ceil(LIFT_MIN_CHARS / 8))
const ascii = (seed: string) => `${seed}"\\\n `.repeat(Math.ceil(LIFT_MIN_CHARS / 4))

/** The bytes of `frame` as a socket carries them. */
const bytesOf = (frame: Frame) => Buffer.concat((typeof frame === 'string' ? [frame] : frame).map((chunk) => (typeof chunk === 'string' ? Buffer.from(chunk) : chunk)))

/** Decodes `bytes` fed in chunks of `size` bytes; the messages and the problems, if any. */
function decode(bytes: Buffer | string, size = bytes.length) {
  const whole = typeof bytes === 'string' ? Buffer.from(bytes) : bytes
  const messages: unknown[] = []
  const problems: string[] = []
  const reader = new FrameReader((message) => messages.push(message), (problem) => problems.push(problem))
  for (let at = 0; at < whole.length; at += size) reader.push(whole.subarray(at, at + size))
  return { messages, problems }
}

describe('JSON frames (issue 12)', () => {
  const messages = [
    { type: 'dispatch', runId: 'r', pairingId: 'r:1', name: 'noop', argsJson: '{"i":1,"é":"😀"}' },
    { type: 'answers', answers: [['r', 'r:1', 1, long('a')], ['r', 'r:2', 0, 'short'], ['r', 'r:3', 1, ascii('b')]] },
    { type: 'result', runId: 'r', result: { status: 'ok', value: { list: [long('c'), 1, null, { deep: ascii('d') }] }, logs: [] } },
    { type: 'run', runId: 'r', js: `x\ud800${'y'.repeat(LIFT_MIN_CHARS)}`, toolNames: ['x'], limits: {}, checkMs: 0 },
  ]

  it('S9.1 messages with and without long strings come out equal, fed whole or cut at every byte', () => {
    const bytes = Buffer.concat(messages.map((message) => bytesOf(encodeFrame(message))))
    for (const size of [bytes.length, 4096, 7, 1]) expect(decode(bytes, size)).toEqual({ messages, problems: [] })
  })

  it('S9.1 chunks read into one reused buffer (a socket\'s onread) come out equal: what the reader keeps of one is copied', () => {
    const bytes = Buffer.concat(messages.map((message) => bytesOf(encodeFrame(message))))
    for (const size of [4096, 7, 1]) {
      const read: unknown[] = []
      const reader = new FrameReader((message) => read.push(structuredClone(message)), (problem) => read.push(problem))
      const shared = Buffer.alloc(size)
      for (let at = 0; at < bytes.length; at += size) {
        const length = bytes.copy(shared, 0, at, at + size)
        reader.push(shared.subarray(0, length), true)
        shared.fill(0x7b) // The socket's next read overwrites it.
      }
      expect(read).toEqual(messages)
    }
  })

  it('S9.1 a long string crosses beside the JSON as its bytes when ASCII, else UTF-16LE (lone surrogates kept)', () => {
    expect(encodeFrame(messages[0])).toBe(`${JSON.stringify(messages[0])}\n`)
    const [head, ...strings] = encodeFrame(messages[1]) as (string | Buffer)[]
    expect((head as string).startsWith('#')).toBe(true)
    expect(strings).toEqual([Buffer.from(long('a'), 'utf16le'), Buffer.from(ascii('b'), 'latin1')])
    // Latin-1 beyond ASCII (é) crosses as UTF-16LE too, and arrives equal.
    const latin = { type: 'run', js: 'é'.repeat(LIFT_MIN_CHARS) }
    expect((encodeFrame(latin) as Buffer[])[1]).toEqual(Buffer.from(latin.js, 'utf16le'))
    expect(decode(bytesOf(encodeFrame(latin)), 3).messages).toEqual([latin])
    // The message given is not changed by lifting its strings out.
    expect((messages[1] as { answers: unknown[][] }).answers[0]![3]).toBe(long('a'))
    expect(decode(bytesOf(encodeFrame(messages[3]))).messages).toEqual([messages[3]])

  })

  it('S9.1 a key named __proto__ stays an own property, on the lifted path and off it', () => {
    const message = JSON.parse(`{"type":"result","value":{"__proto__":{"text":${JSON.stringify(long('p'))},"short":"s"}}}`) as object
    const [decoded] = decode(bytesOf(encodeFrame(message))).messages as { value: object }[]
    expect(Object.getPrototypeOf(decoded!.value)).toBe(Object.prototype)
    expect(Object.hasOwn(decoded!.value, '__proto__')).toBe(true)
    expect(decoded).toEqual(message)
  })

  it('S9.1 strings under long keys or deep paths stay in the JSON, so the header never outgrows what it lifts', () => {
    let value: unknown = Array.from({ length: 200 }, (_, index) => `${index}`.padEnd(LIFT_MIN_CHARS, 'x'))
    for (let depth = 0; depth < 20; depth++) value = { ['k'.repeat(600)]: value }
    const message = { type: 'result', result: { value, shallow: long('s') } }
    const frame = encodeFrame(message) as (string | Buffer)[]
    expect(frame).toHaveLength(2) // only the shallow string is lifted
    expect((frame[0] as string).length).toBeLessThan(JSON.stringify(message).length)
    expect(decode(bytesOf(frame)).messages).toEqual([message])
    const deep: Record<string, unknown> = { text: long('d') }
    let nested: unknown = deep
    for (let depth = 0; depth < MAX_LIFT_DEPTH; depth++) nested = { n: nested }
    expect(typeof encodeFrame(nested)).toBe('string')
  })

  it('S9.1 what JSON cannot carry fails the encoding instead of crossing changed', () => {
    expect(() => encodeFrame({ big: 1n })).toThrow(TypeError)
    expect(() => encodeFrame(undefined)).toThrow(TypeError)
    expect(() => encodeFrame(() => 1)).toThrow(TypeError)
    const cycle: Record<string, unknown> = {}
    cycle.self = cycle
    expect(() => encodeFrame(cycle)).toThrow(TypeError)
  })

  it('S9.1 a frame that is not JSON stops the reader with what was wrong; nothing after it is read', () => {
    const { messages: read, problems } = decode(`{"a":1}\n{not json}\n{"b":2}\n`)
    expect(read).toEqual([{ a: 1 }])
    expect(problems).toEqual([expect.stringMatching(/^a frame is not JSON/)])
  })

  it('S9.1 a long string aimed anywhere but a place the encoder left is refused without throwing, and no prototype changes', () => {
    const cases: [object, unknown[]][] = [
      [{ a: 0 }, ['__proto__', 'polluted']],
      [{ a: 0 }, ['missing']],
      [{ a: 0 }, []],
      [{ a: 0 }, ['a', 'b']],
      [{ a: [0] }, ['a', 'length']],
      [{ a: [] }, ['a', 'length']],
      [{ a: [0] }, ['a', 5]],
      [{ a: [0] }, ['a', '0']],
      [{ a: 'x' }, ['a']],
    ]
    for (const [m, path] of cases) {
      const { messages: read, problems } = decode(`#${JSON.stringify({ m, p: [path], n: [3], w: [0] })}\nyes`)
      expect(read).toEqual([])
      expect(problems).toEqual([expect.stringContaining('is not a place the message left for it')])
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('S9.1 a frame too large to hold stops the reader instead of throwing or buffering without end', () => {
    // A line that never ends, past the line limit: refused while it is still being buffered.
    const endless = decode(Buffer.alloc(MAX_LINE_BYTES + 1, 0x61), 2 ** 20)
    expect(endless).toEqual({ messages: [], problems: [`a frame's JSON line is longer than ${MAX_LINE_BYTES} bytes`] })
    for (const head of [
      { m: { a: 0 }, p: [['a']], n: [MAX_STRING_UNITS + 1], w: [0] },
      { m: { a: 0, b: 0 }, p: [['a'], ['b']], n: [MAX_FRAME_BYTES / 2, MAX_FRAME_BYTES / 4 + 1], w: [0, 1] },
      { m: { a: 0 }, p: [['a']], n: [Number.MAX_SAFE_INTEGER], w: [0] },
    ]) {
      expect(decode(`#${JSON.stringify(head)}\nxyz`).problems).toEqual([expect.stringContaining("long strings are longer than a string can be")])
    }
  })

  it('S9.1 a long-string header without matching paths, lengths and encodings is refused', () => {
    for (const head of [{ m: {}, p: [['a']], w: [0] }, { m: {}, p: [['a']], n: [-1], w: [0] }, { m: {}, p: [], n: [1], w: [0] }, { m: {}, p: [['a']], n: [1], w: [2] }, null]) {
      expect(decode(`#${JSON.stringify(head)}\n`).problems).toEqual([expect.stringContaining('paths, lengths and encodings')])
    }
  })

  it('S9.1 written straight to the socket\'s descriptor, a frame the kernel takes only in part is finished by the socket, and the frames after it keep their order', async () => {
    const folder = mkdtempSync(path.join(tmpdir(), 'ptc-frames-'))
    const server = createServer()
    server.listen(path.join(folder, 'socket'))
    await once(server, 'listening')
    try {
      const accepted = once(server, 'connection') as Promise<[Socket]>
      const client = connect(path.join(folder, 'socket'))
      await once(client, 'connect')
      const [peer] = await accepted
      const read: unknown[] = []
      const reader = new FrameReader((message) => read.push(message), (problem) => read.push(problem))
      peer.on('data', (chunk: Buffer) => reader.push(chunk))
      const fd = (client as unknown as { _handle: { fd: number } })._handle.fd
      // About 540 KB of short strings: one line, more than a socket's buffer holds at once.
      const big = { type: 'big', list: Array.from({ length: 50_000 }, (_, index) => `item-${index}-é`) }
      const sent = [{ type: 'first' }, big, { type: 'after' }, { type: 'last' }]
      for (const message of sent) expect(sendFrame(client, message, fd)).toBe(true)
      expect(client.writableLength).toBeGreaterThan(0) // The rest of the big frame waited on the socket.
      while (read.length < sent.length) await once(peer, 'data')
      expect(read).toEqual(sent)
      client.destroy()
      peer.destroy()
    } finally {
      server.close()
      rmSync(folder, { recursive: true, force: true })
    }
  })
})
