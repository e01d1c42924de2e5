/**
 * The framing of the isolate worker's channel (issue 12: "a leaner worker channel than
 * `process.send`"): messages as JSON text over a plain socket, with long strings carried beside
 * the JSON, as raw bytes, instead of escaped inside it.
 *
 * Most of what crosses is JSON text already (a call's arguments, a tool's result, a script's
 * value), which a JSON channel would escape a second time. A frame is one line of JSON (UTF-8),
 * and a string of at least {@link LIFT_MIN_CHARS} UTF-16 units at a short path of the message
 * (at most {@link MAX_LIFT_DEPTH} keys of {@link MAX_PATH_CHARS} characters together) is lifted
 * out of it: the line then starts with `#` and holds `{ m, p, n, w }` (the message with each
 * lifted string replaced by 0, their paths, their lengths in UTF-16 units, and whether each is
 * sent as UTF-16LE (1) or Latin-1 (0)), and the strings follow the newline back to back: Latin-1
 * when every unit fits a byte, else UTF-16LE, both copies of V8's own string representations,
 * lossless for any string (lone surrogates too). JSON never writes a raw newline inside its text,
 * and no UTF-8 sequence contains the newline byte, so the first newline byte ends the line.
 * The path bound keeps the header smaller than the strings it lifts: a value of many long strings
 * under long keys cannot make the header grow with depth × key length (a review found 2 MB of
 * such a value costing the host 400 MB); strings deeper than that stay escaped in the JSON.
 *
 * Measured (a bare echo between two processes, the bench's dispatch message and 64 KB answer,
 * nine interleaved rounds, medians, 2026-12-03 23:45, load 0.3; µs a round trip): a dispatch-sized
 * message 40.8 against 52.0 over Node's `'advanced'` IPC (52.1 with `v8.serialize` frames on a
 * socket); the 64 KB answer one way about the same, 96.7 against 94.8 (152 `v8.serialize`
 * frames). Node's `'json'` IPC and plain JSON lines cost 420-460 with the 64 KB answer, which
 * they escape. In `run_code` a sequential call from code became 9-18 µs cheaper (interleaved
 * rounds, 150 -> 141 and 159 -> 141 µs a call).
 *
 * What JSON cannot carry does not cross as it was: `undefined` properties are left out (in
 * arrays they become `null`), non-finite numbers become `null`, a `toJSON` (a `Date`) is applied.
 * The channel's messages (`isolate/isolate-contract.ts`) are plain data, so none of that happens
 * to them.
 */
import { Socket } from 'node:net'

/** Strings at least this long (UTF-16 units) cross beside the JSON line instead of escaped inside it. */
export const LIFT_MIN_CHARS = 512

/** Strings under more keys than this stay inside the JSON (a cycle then fails as JSON.stringify fails it). */
export const MAX_LIFT_DEPTH = 8

/** Strings whose path's keys are longer than this together (characters) stay inside the JSON. */
export const MAX_PATH_CHARS = 64

type Key = string | number

/** Matches a string with a UTF-16 unit above 0xFF (one that Latin-1 cannot hold). */
const WIDE = /[^\x00-\xff]/

/** A frame: one string, or a header line and the lifted strings' bytes back to back (written together). */
export type Frame = string | readonly (string | Buffer)[]


/**
 * One frame for `message`: a line of JSON, and after it the lifted strings (see the module
 * comment). The frame of a message without long strings is `JSON.stringify(message) + '\n'`.
 * @throws TypeError what `JSON.stringify` throws (a BigInt, a cycle), RangeError for nesting too deep for it.
 */
export function encodeFrame(message: unknown): Frame {
  const paths: Key[][] = []
  const texts: string[] = []
  const stripped = lift(message, [], 0, paths, texts)
  if (texts.length === 0) return `${JSON.stringify(message)}\n`
  // Latin-1 when ASCII (its UTF-8 length is its length: a fast SIMD count) or every unit fits a byte.
  const wide = texts.map((text) => (Buffer.byteLength(text) === text.length || !WIDE.test(text) ? 0 : 1))
  let bytes = 0
  for (let index = 0; index < texts.length; index++) bytes += texts[index]!.length * (wide[index] === 1 ? 2 : 1)
  const strings = Buffer.allocUnsafe(bytes)
  let offset = 0
  for (let index = 0; index < texts.length; index++) offset += strings.write(texts[index]!, offset, wide[index] === 1 ? 'utf16le' : 'latin1')
  return [`#${JSON.stringify({ m: stripped, p: paths, n: texts.map((text) => text.length), w: wide })}\n`, strings]
}

/** Writes `frame` to `socket` in one go (one `writev` for a frame with lifted strings). */
export function writeFrame(socket: Socket, frame: Frame): void {
  if (typeof frame === 'string') {
    socket.write(frame)
    return
  }
  socket.cork()
  for (const chunk of frame) socket.write(chunk)
  socket.uncork()
}

/**
 * `value` with its long strings at short paths replaced by 0 (copies only along their paths),
 * which go to `paths` and `texts`; `pathChars` is the length of `path`'s keys together.
 */
function lift(value: unknown, path: Key[], pathChars: number, paths: Key[][], texts: string[]): unknown {
  if (typeof value === 'string') {
    if (path.length === 0 || value.length < LIFT_MIN_CHARS) return value
    paths.push([...path])
    texts.push(value)
    return 0
  }
  if (typeof value !== 'object' || value === null || path.length >= MAX_LIFT_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === 'function') return value
  let copy: Record<Key, unknown> | unknown[] | undefined
  const array = Array.isArray(value)
  const keys: Key[] = array ? [] : Object.keys(value)
  const count = array ? value.length : keys.length
  for (let index = 0; index < count; index++) {
    const key = array ? index : keys[index]!
    const chars = pathChars + (array ? String(index).length : (key as string).length)
    if (chars > MAX_PATH_CHARS) continue
    const child = (value as Record<Key, unknown>)[key]
    path.push(key)
    const lifted = lift(child, path, chars, paths, texts)
    path.pop()
    if (lifted === child) continue
    copy ??= array ? [...value] : { ...value }
    if (key === '__proto__') defineData(copy, key, lifted)
    else (copy as Record<Key, unknown>)[key] = lifted
  }
  return copy ?? value
}

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

  constructor(onMessage: (message: unknown) => void, onMalformed: (problem: string) => void) {
    this.#onMessage = onMessage
    this.#onMalformed = onMalformed
  }

  /** Feeds the next chunk of bytes. */
  push(chunk: Buffer): void {
    let at = 0
    while (at < chunk.length && !this.#broken) {
      if (this.#lifted === undefined) {
        const end = chunk.indexOf(10, at)
        if (end < 0) return this.#keep(chunk.subarray(at))
        const line = this.#parts.length === 0 ? chunk.toString('utf8', at, end) : this.#take(chunk.subarray(at, end)).toString('utf8')
        at = end + 1
        this.#line(line)
      } else {
        const wanted = this.#lifted.bytes - this.#partsBytes
        if (chunk.length - at < wanted) return this.#keep(chunk.subarray(at))
        const strings = this.#parts.length === 0 ? chunk.subarray(at, at + wanted) : this.#take(chunk.subarray(at, at + wanted))
        at += wanted
        this.#place(strings)
      }
    }
  }

  #keep(part: Buffer): void {
    this.#parts.push(part)
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
    this.#lifted = { m, p: p as Key[][], n: lengths, w: wide, bytes }
    if (bytes === 0) this.#place(Buffer.alloc(0))
  }

  /** Puts the lifted strings, `strings` back to back, at their paths and delivers the message. */
  #place(strings: Buffer): void {
    const { m, p, n, w } = this.#lifted!
    this.#lifted = undefined
    let offset = 0
    for (let index = 0; index < p.length; index++) {
      const bytes = n[index]! * (w[index] === 1 ? 2 : 1)
      const text = strings.toString(w[index] === 1 ? 'utf16le' : 'latin1', offset, offset + bytes)
      offset += bytes
      if (!setAt(m, p[index]!, text)) return this.#fail(`a long string's path ${JSON.stringify(p[index])} is not a place the message left for it`)
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

/** `target[key] = value` as an own data property, even for the key `__proto__` (as JSON.parse makes it). */
function defineData(target: object, key: Key, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true })
}

/** The worker's end of a `channel: 'frames'` worker (`worker-channel.ts`). */
export interface ParentFrames<Out> {
  /** Sends `message` to the host; false when the channel is closed or it cannot be encoded. */
  send(message: Out): boolean
}

/**
 * Opens the channel to the host on fd 3 (the socket `startWorker` gave this process). Every
 * message from the host goes to `onMessage`, in order; `onClose` is called once when the host
 * has gone (the socket ended or failed) or sent a frame that cannot be read.
 * @throws Error when fd 3 is not a socket (the process was not started with `channel: 'frames'`).
 */
export function openParentFrames<In, Out>(onMessage: (message: In) => void, onClose: (why: string) => void): ParentFrames<Out> {
  let socket: Socket
  try {
    socket = new Socket({ fd: 3, readable: true, writable: true })
  } catch (error) {
    throw new Error(`this worker's fd 3 is not the host's socket (start it with startWorker's channel: 'frames'): ${(error as Error).message}`)
  }
  let closed = false
  const close = (why: string): void => {
    if (closed) return
    closed = true
    onClose(why)
  }
  const reader = new FrameReader(onMessage as (message: unknown) => void, (problem) => close(`the host sent a malformed message: ${problem}`))
  socket.on('data', (chunk: Buffer) => reader.push(chunk))
  socket.on('end', () => close('the host closed the channel'))
  socket.on('close', () => close('the host closed the channel'))
  socket.on('error', (error) => close(`the channel failed: ${error.message}`))
  return {
    send(message) {
      if (closed || !socket.writable) return false
      let frame: Frame
      try {
        frame = encodeFrame(message)
      } catch {
        return false
      }
      writeFrame(socket, frame)
      return true
    },
  }
}
