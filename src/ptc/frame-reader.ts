/**
 * Reading the isolate worker channel's frames (`json-frames.ts` writes them; issue 12): whole
 * messages out of a stream of bytes cut anywhere, with each lifted string put back where the
 * encoder left its 0, and never a throw or a prototype reached for a frame that is not what the
 * encoder writes.
 */
import { defineData, MAX_LIFT_DEPTH, type Key } from './json-frames.ts'

/**
 * Longest header line accepted, in bytes. Long strings cross beside the line, so a line holds
 * only a message's structure and short strings (a turn's 128 answers, a run's logs): megabytes at
 * most. Past this, or past V8's longest string, the frame is malformed rather than a host crash.
 */
export const MAX_LINE_BYTES = 64 * 2 ** 20

/** Longest lifted string accepted, in UTF-16 units: V8's longest string (2^29 - 24). */
export const MAX_STRING_UNITS = 2 ** 29 - 24

/**
 * Most bytes one frame's lifted strings may total (1 GiB): what a reader buffers at most before it
 * has a whole message, so a worker that never ends a frame cannot grow the host without bound.
 */
export const MAX_FRAME_BYTES = 2 ** 30

/** What a `#` line announced: the message and where its strings go, waiting for their bytes. */
interface Lifted {
  m: unknown
  p: Key[][]
  n: number[]
  w: number[]
  bytes: number
}

/**
 * Reads frames from a stream of bytes (a socket's chunks, cut anywhere): every whole message goes
 * to `onMessage`, in order, as it completes. A frame that is not what {@link encodeFrame} writes
 * goes to `onMalformed` with what is wrong, and the reader reads nothing more (the channel cannot
 * be trusted to be in step after it). Never throws for what it reads.
 */
export class FrameReader {
  readonly #onMessage: (message: unknown) => void
  readonly #onMalformed: (problem: string) => void
  /** Bytes of the frame being read, not yet complete. */
  #parts: Buffer[] = []
  #partsBytes = 0
  #lifted: Lifted | undefined
  #broken = false
  readonly #maxLine: number
  readonly #maxFrame: number

  /**
   * `maxBytes` lowers both limits ({@link MAX_LINE_BYTES}, {@link MAX_FRAME_BYTES}) for a channel
   * whose messages are known to be small (a type checker's), so that a worker gone wrong cannot
   * hold the host's thread parsing or copying a huge one.
   */
  constructor(onMessage: (message: unknown) => void, onMalformed: (problem: string) => void, maxBytes = Number.POSITIVE_INFINITY) {
    this.#onMessage = onMessage
    this.#onMalformed = onMalformed
    this.#maxLine = Math.min(MAX_LINE_BYTES, maxBytes)
    this.#maxFrame = Math.min(MAX_FRAME_BYTES, maxBytes)
  }

  /**
   * Feeds the next chunk of bytes. `borrowed`: the chunk's memory is reused once this returns (a
   * socket reading into one buffer), so what is kept of it for a later chunk is copied.
   */
  push(chunk: Buffer, borrowed = false): void {
    let at = 0
    while (at < chunk.length && !this.#broken) {
      if (this.#lifted === undefined) {
        const end = chunk.indexOf(10, at)
        // Refused while it is still being buffered, whether or not its end has come.
        if (this.#partsBytes + (end < 0 ? chunk.length : end) - at > this.#maxLine) return this.#fail(`a frame's JSON line is longer than ${this.#maxLine} bytes`)
        if (end < 0) return this.#keep(chunk.subarray(at), borrowed)
        let line: string
        try {
          line = this.#parts.length === 0 ? chunk.toString('utf8', at, end) : this.#take(chunk.subarray(at, end)).toString('utf8')
        } catch {
          return this.#fail('a frame\'s JSON line could not be decoded')
        }
        at = end + 1
        this.#line(line)
      } else {
        const wanted = this.#lifted.bytes - this.#partsBytes
        if (chunk.length - at < wanted) return this.#keep(chunk.subarray(at), borrowed)
        const pieces = [...this.#parts, chunk.subarray(at, at + wanted)]
        this.#parts = []
        this.#partsBytes = 0
        at += wanted
        this.#place(pieces)
      }
    }
  }

  #keep(part: Buffer, borrowed: boolean): void {
    this.#parts.push(borrowed ? Buffer.from(part) : part)
    this.#partsBytes += part.length
  }

  /** The bytes kept and `last` as one buffer; nothing is kept after. */
  #take(last: Buffer): Buffer {
    const whole = Buffer.concat([...this.#parts, last])
    this.#parts = []
    this.#partsBytes = 0
    return whole
  }

  #line(line: string): void {
    const lifted = line.startsWith('#')
    let parsed: unknown
    try {
      parsed = JSON.parse(lifted ? line.slice(1) : line)
    } catch (error) {
      return this.#fail(`a frame is not JSON (${(error as Error).message})`)
    }
    if (!lifted) return this.#onMessage(parsed)
    const { m, p, n, w } = (parsed ?? {}) as { m?: unknown; p?: unknown; n?: unknown; w?: unknown }
    const lengths = Array.isArray(n) && n.every((length) => Number.isSafeInteger(length) && length >= 0) ? (n as number[]) : undefined
    const wide = Array.isArray(w) && w.every((flag) => flag === 0 || flag === 1) ? (w as number[]) : undefined
    if (lengths === undefined || wide === undefined || !Array.isArray(p) || p.length !== lengths.length || wide.length !== lengths.length) {
      return this.#fail('a frame with long strings does not list their paths, lengths and encodings')
    }
    let bytes = 0
    for (let index = 0; index < lengths.length; index++) bytes += lengths[index]! * (wide[index] === 1 ? 2 : 1)
    if (lengths.some((length) => length > MAX_STRING_UNITS) || bytes > this.#maxFrame) {
      return this.#fail(`a frame's long strings are longer than a string can be (${MAX_STRING_UNITS} units) or than ${this.#maxFrame} bytes together`)
    }
    this.#lifted = { m, p: p as Key[][], n: lengths, w: wide, bytes }
    if (bytes === 0) this.#place([])
  }

  /** Puts the lifted strings (`pieces`: their bytes back to back, cut as they came) at their paths and delivers the message. */
  #place(pieces: Buffer[]): void {
    const { m, p, n, w } = this.#lifted!
    this.#lifted = undefined
    const cursor = new PieceCursor(pieces)
    for (let index = 0; index < p.length; index++) {
      const encoding = w[index] === 1 ? 'utf16le' : 'latin1'
      const text = cursor.read(n[index]! * (encoding === 'utf16le' ? 2 : 1), encoding)
      if (text === undefined) return this.#fail('a long string could not be decoded')
      if (!setAt(m, p[index]!, text)) return this.#fail(`a long string's path ${JSON.stringify(p[index]).slice(0, 200)} is not a place the message left for it`)
    }
    this.#onMessage(m)
  }

  #fail(problem: string): void {
    this.#broken = true
    this.#parts = []
    this.#onMalformed(problem)
  }
}

/**
 * Reads strings back to back out of `pieces` (consecutive buffers), moving forward only, so a
 * frame of many strings in many chunks is decoded in one pass. Latin-1 is decoded piece by piece
 * (a byte is a unit); UTF-16LE spanning pieces is joined first, since a piece may end inside a unit.
 */
class PieceCursor {
  readonly #pieces: readonly Buffer[]
  #index = 0
  #offset = 0

  constructor(pieces: readonly Buffer[]) {
    this.#pieces = pieces
  }

  /** The next `bytes` bytes as text; `undefined` when V8 cannot make the string. */
  read(bytes: number, encoding: 'latin1' | 'utf16le'): string | undefined {
    const parts: Buffer[] = []
    for (let left = bytes; left > 0; ) {
      const piece = this.#pieces[this.#index]!
      const take = Math.min(left, piece.length - this.#offset)
      parts.push(piece.subarray(this.#offset, this.#offset + take))
      left -= take
      this.#offset += take
      if (this.#offset === piece.length) {
        this.#index++
        this.#offset = 0
      }
    }
    try {
      if (parts.length === 0) return ''
      if (parts.length === 1) return parts[0]!.toString(encoding)
      if (encoding === 'utf16le') return Buffer.concat(parts).toString(encoding)
      let text = ''
      for (const part of parts) text += part.toString(encoding)
      return text
    } catch {
      return undefined
    }
  }
}

/**
 * Sets the place at `path` of `root` to `text`, through own properties only (a path through
 * `__proto__` or a missing key would otherwise reach a prototype), and only where the encoder
 * left its 0: an array's index below its length or an object's own data property. False when
 * there is no such place.
 */
function setAt(root: unknown, path: readonly Key[], text: string): boolean {
  if (!Array.isArray(path) || path.length === 0 || path.length > MAX_LIFT_DEPTH) return false
  let parent = root
  for (let index = 0; index < path.length - 1; index++) {
    if (typeof parent !== 'object' || parent === null || !Object.hasOwn(parent, path[index]!)) return false
    parent = (parent as Record<Key, unknown>)[path[index]!]
  }
  const key = path[path.length - 1]!
  if (typeof parent !== 'object' || parent === null) return false
  if (Array.isArray(parent) ? !(Number.isSafeInteger(key) && (key as number) >= 0 && (key as number) < parent.length) : typeof key !== 'string') return false
  const place = Object.getOwnPropertyDescriptor(parent, key)
  if (place === undefined || !('value' in place) || place.value !== 0 || !place.writable || !place.configurable) return false
  // A plain assignment keeps an array's elements fast; `__proto__` needs a definition.
  if (key === '__proto__') defineData(parent, key, text)
  else (parent as Record<Key, unknown>)[key] = text
  return true
}

