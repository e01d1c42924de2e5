/**
 * The framing of the isolate worker's channel (issue 12: "a leaner worker channel than
 * `process.send`"): messages as JSON text over a plain socket, with long strings carried beside
 * the JSON instead of inside it.
 *
 * Most of what crosses is JSON text already (a call's arguments, a tool's result, a script's
 * value), which a JSON channel would escape a second time and Node's `'advanced'` IPC copies
 * through V8's serializer. Here a frame is one line of JSON, and a string of at least
 * {@link LIFT_MIN_CHARS} UTF-16 units anywhere in the message is lifted out of it: the line then
 * starts with `#` and holds `{ m, p, n }` (the message with each lifted string replaced by 0,
 * their paths, their lengths), and the strings follow the newline, back to back, unescaped.
 * JSON never writes a raw newline inside its text, so the first newline ends the line.
 *
 * Measured (a bare echo between two processes, the bench's dispatch message and 64 KB answer,
 * nine interleaved rounds, medians, 2026-12-03 23:45, load 0.3; µs a round trip): a dispatch-sized
 * message 40.8 against 52.0 over Node's `'advanced'` IPC (52.1 with `v8.serialize` frames on a
 * socket); the 64 KB answer one way about the same, 96.7 against 94.8 (152 `v8.serialize`
 * frames). Node's `'json'` IPC and plain JSON lines cost 420-460 with the 64 KB answer, which
 * they escape; with it lifted out, this framing does not. In `run_code` a sequential call from
 * code became 9-18 µs cheaper (interleaved rounds, 150 -> 141 and 159 -> 141 µs a call).
 *
 * What JSON cannot carry does not cross as it was: `undefined` properties are left out (in
 * arrays they become `null`), non-finite numbers become `null`, a `toJSON` (a `Date`) is applied.
 * The channel's messages (`isolate/isolate-contract.ts`) are plain data, so none of that happens
 * to them. A string with a lone surrogate is never lifted (UTF-8 would replace it): JSON escapes
 * it, so it crosses unchanged.
 */

import { Socket } from 'node:net'

/** Strings at least this long (UTF-16 units) cross beside the JSON line instead of escaped inside it. */
export const LIFT_MIN_CHARS = 512

/** Long strings nested deeper than this stay inside the JSON (a cycle then fails as JSON.stringify fails it). */
const MAX_LIFT_DEPTH = 64

type Key = string | number

/**
 * One frame for `message`: a line of JSON, and after it the lifted strings (see the module
 * comment). The frame of a message without long strings is `JSON.stringify(message) + '\n'`.
 * @throws TypeError what `JSON.stringify` throws (a BigInt, a cycle), RangeError for nesting too deep for it.
 */
export function encodeFrame(message: unknown): string {
  const paths: Key[][] = []
  const texts: string[] = []
  const stripped = lift(message, [], paths, texts)
  if (texts.length === 0) return `${JSON.stringify(message)}\n`
  return `#${JSON.stringify({ m: stripped, p: paths, n: texts.map((text) => text.length) })}\n${texts.join('')}`
}

/** `value` with its long strings replaced by 0 (copies only along their paths), which go to `paths` and `texts`. */
function lift(value: unknown, path: Key[], paths: Key[][], texts: string[]): unknown {
  if (typeof value === 'string') {
    if (path.length === 0 || value.length < LIFT_MIN_CHARS || !value.isWellFormed()) return value
    paths.push([...path])
    texts.push(value)
    return 0
  }
  if (typeof value !== 'object' || value === null || path.length >= MAX_LIFT_DEPTH || typeof (value as { toJSON?: unknown }).toJSON === 'function') return value
  let copy: Record<Key, unknown> | unknown[] | undefined
  const visit = (key: Key, child: unknown): void => {
    path.push(key)
    const lifted = lift(child, path, paths, texts)
    path.pop()
    if (lifted === child) return
    copy ??= Array.isArray(value) ? [...value] : { ...value }
    defineData(copy, key, lifted)
  }
  if (Array.isArray(value)) for (let index = 0; index < value.length; index++) visit(index, value[index])
  else for (const key of Object.keys(value)) visit(key, (value as Record<string, unknown>)[key])
  return copy ?? value
}

/**
 * Reads frames from a stream of text (a socket with `setEncoding('utf8')`, which never splits a
 * character): every whole message goes to `onMessage`, in order, as it completes. A frame that
 * is not what {@link encodeFrame} writes goes to `onMalformed` with what is wrong, and the
 * reader reads nothing more (the channel cannot be trusted to be in step after it).
 */
export class FrameReader {
  readonly #onMessage: (message: unknown) => void
  readonly #onMalformed: (problem: string) => void
  /** Text of the frame being read, not yet complete. */
  #parts: string[] = []
  #partsLength = 0
  /** A `#` line read, waiting for its strings. */
  #lifted: { m: unknown; p: Key[][]; n: number[]; total: number } | undefined
  #broken = false

  constructor(onMessage: (message: unknown) => void, onMalformed: (problem: string) => void) {
    this.#onMessage = onMessage
    this.#onMalformed = onMalformed
  }

  /** Feeds the next chunk of text. */
  push(chunk: string): void {
    while (chunk.length > 0 && !this.#broken) {
      if (this.#lifted === undefined) {
        const end = chunk.indexOf('\n')
        if (end < 0) return this.#keep(chunk)
        const line = this.#parts.length === 0 ? chunk.slice(0, end) : this.#take() + chunk.slice(0, end)
        chunk = chunk.slice(end + 1)
        this.#line(line)
      } else {
        const wanted = this.#lifted.total - this.#partsLength
        if (chunk.length < wanted) return this.#keep(chunk)
        const strings = this.#take() + chunk.slice(0, wanted)
        chunk = chunk.slice(wanted)
        this.#place(strings)
      }
    }
  }

  #keep(chunk: string): void {
    this.#parts.push(chunk)
    this.#partsLength += chunk.length
  }

  #take(): string {
    const text = this.#parts.join('')
    this.#parts = []
    this.#partsLength = 0
    return text
  }

  #line(line: string): void {
    let parsed: unknown
    try {
      parsed = JSON.parse(line.startsWith('#') ? line.slice(1) : line)
    } catch (error) {
      return this.#fail(`a frame is not JSON (${(error as Error).message})`)
    }
    if (!line.startsWith('#')) return this.#onMessage(parsed)
    const { m, p, n } = (parsed ?? {}) as { m?: unknown; p?: unknown; n?: unknown }
    const lengths = Array.isArray(n) && n.every((length) => Number.isSafeInteger(length) && length >= 0) ? (n as number[]) : undefined
    if (lengths === undefined || !Array.isArray(p) || p.length !== lengths.length) return this.#fail('a frame with long strings does not list their paths and lengths')
    const total = lengths.reduce((sum, length) => sum + length, 0)
    this.#lifted = { m, p: p as Key[][], n: lengths, total }
    if (total === 0) this.#place('')
  }

  /** Puts the lifted strings, `strings` back to back, at their paths and delivers the message. */
  #place(strings: string): void {
    const { m, p, n } = this.#lifted!
    this.#lifted = undefined
    let offset = 0
    for (let index = 0; index < p.length; index++) {
      const text = strings.slice(offset, offset + n[index]!)
      offset += n[index]!
      if (!setAt(m, p[index]!, text)) return this.#fail(`a long string's path ${JSON.stringify(p[index])} is not in the message`)
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
 * Sets the property at `path` of `root` to `text`, through own properties only (a path through
 * `__proto__` or a missing key would otherwise reach a prototype); false when it is not there.
 */
function setAt(root: unknown, path: readonly Key[], text: string): boolean {
  if (!Array.isArray(path) || path.length === 0) return false
  let parent = root
  for (let index = 0; index < path.length - 1; index++) {
    if (typeof parent !== 'object' || parent === null || !Object.hasOwn(parent, path[index]!)) return false
    parent = (parent as Record<Key, unknown>)[path[index]!]
  }
  const key = path[path.length - 1]!
  if (typeof parent !== 'object' || parent === null || !Object.hasOwn(parent, key)) return false
  defineData(parent, key, text)
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
  socket.setEncoding('utf8')
  socket.on('data', (chunk: string) => reader.push(chunk))
  socket.on('end', () => close('the host closed the channel'))
  socket.on('close', () => close('the host closed the channel'))
  socket.on('error', (error) => close(`the channel failed: ${error.message}`))
  return {
    send(message) {
      if (closed || !socket.writable) return false
      try {
        socket.write(encodeFrame(message))
        return true
      } catch {
        return false
      }
    },
  }
}
