/**
 * The isolate worker channel's framing (issue 12, SPEC S9.1): JSON lines with long strings
 * carried beside them. Every message must come out as it went in, however the text is cut into
 * chunks, and a frame that is not what the encoder writes must stop the reader, never reach a
 * prototype.
 */
import { describe, expect, it } from 'vitest'
import { encodeFrame, FrameReader, LIFT_MIN_CHARS } from '../../../src/ptc/json-frames.ts'

const long = (seed: string) => `${seed}"\\\n é 😀 `.repeat(Math.ceil(LIFT_MIN_CHARS / 8))

/** Decodes `text` fed in chunks of `size` characters; the messages and the problem, if any. */
function decode(text: string, size = text.length) {
  const messages: unknown[] = []
  const problems: string[] = []
  const reader = new FrameReader((message) => messages.push(message), (problem) => problems.push(problem))
  for (let at = 0; at < text.length; at += size) reader.push(text.slice(at, at + size))
  return { messages, problems }
}

describe('JSON frames (issue 12)', () => {
  const messages = [
    { type: 'dispatch', runId: 'r', pairingId: 'r:1', name: 'noop', argsJson: '{"i":1}' },
    { type: 'answers', answers: [['r', 'r:1', 1, long('a')], ['r', 'r:2', 0, 'short'], ['r', 'r:3', 1, long('b')]] },
    { type: 'result', runId: 'r', result: { status: 'ok', value: { list: [long('c'), 1, null, { deep: long('d') }] }, logs: [] } },
    { type: 'run', runId: 'r', js: long('e'), toolNames: ['x'], limits: {}, checkMs: 0 },
  ]

  it('S9.1 messages with and without long strings come out equal, fed whole or a character at a time', () => {
    const text = messages.map(encodeFrame).join('')
    for (const size of [text.length, 4096, 7, 1]) expect(decode(text, size)).toEqual({ messages, problems: [] })
  })

  it('S9.1 a long string crosses beside the JSON, unescaped; a message without one is one JSON line', () => {
    expect(encodeFrame(messages[0])).toBe(`${JSON.stringify(messages[0])}\n`)
    const frame = encodeFrame(messages[3])
    expect(frame.startsWith('#')).toBe(true)
    expect(frame.endsWith(long('e'))).toBe(true)
    // The message given is not changed by lifting its strings out.
    expect((messages[3] as { js: string }).js).toBe(long('e'))
  })

  it('S9.1 a key named __proto__ stays an own property, on the lifted path and off it', () => {
    const message = JSON.parse(`{"type":"result","value":{"__proto__":{"text":${JSON.stringify(long('p'))},"short":"s"}}}`) as object
    const [decoded] = decode(encodeFrame(message)).messages as { value: object }[]
    expect(Object.getPrototypeOf(decoded!.value)).toBe(Object.prototype)
    expect(Object.hasOwn(decoded!.value, '__proto__')).toBe(true)
    expect(decoded).toEqual(message)
  })

  it('S9.1 a long string with a lone surrogate is escaped in the JSON, so it crosses unchanged', () => {
    const lone = `${'x'.repeat(LIFT_MIN_CHARS)}\ud800`
    const frame = encodeFrame({ text: lone })
    expect(frame.startsWith('#')).toBe(false)
    expect(decode(frame).messages).toEqual([{ text: lone }])
  })

  it('S9.1 what JSON cannot carry fails the encoding instead of crossing changed', () => {
    expect(() => encodeFrame({ big: 1n })).toThrow(TypeError)
    const cycle: Record<string, unknown> = {}
    cycle.self = cycle
    expect(() => encodeFrame(cycle)).toThrow(TypeError)
  })

  it('S9.1 a frame that is not JSON stops the reader with what was wrong; nothing after it is read', () => {
    const { messages: read, problems } = decode(`{"a":1}\n{not json}\n{"b":2}\n`)
    expect(read).toEqual([{ a: 1 }])
    expect(problems).toEqual([expect.stringMatching(/^a frame is not JSON/)])
  })

  it('S9.1 a long string whose path leaves the message (through __proto__ or a missing key) is refused, and no prototype changes', () => {
    for (const path of [['__proto__', 'polluted'], ['missing'], [], ['a', 'b']]) {
      const frame = `#${JSON.stringify({ m: { a: 'x' }, p: [path], n: [3] })}\nyes`
      const { messages: read, problems } = decode(frame)
      expect(read).toEqual([])
      expect(problems).toEqual([expect.stringContaining('is not in the message')])
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('S9.1 a long-string header without matching paths and lengths is refused', () => {
    for (const head of [{ m: {}, p: [['a']] }, { m: {}, p: [['a']], n: [-1] }, { m: {}, p: [], n: [1] }, null]) {
      expect(decode(`#${JSON.stringify(head)}\n`).problems).toEqual([expect.stringContaining('paths and lengths')])
    }
  })
})
