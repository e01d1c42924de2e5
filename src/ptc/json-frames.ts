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
 * sent as UTF-16LE (1) or one byte a unit (0)), and the strings follow the newline back to back:
 * ASCII as its bytes, anything else as UTF-16LE, both plain copies of V8's own string
 * representations, lossless for any string (lone surrogates too). JSON never writes a raw newline inside its text,
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
 * Reading frames: `frame-reader.ts`; the worker's end of the channel: `parent-frames.ts`.
 *
 * What JSON cannot carry does not cross as it was: `undefined` properties are left out (in
 * arrays they become `null`), non-finite numbers become `null`, a `toJSON` (a `Date`) is applied.
 * The channel's messages (`isolate/isolate-contract.ts`) are plain data, so none of that happens
 * to them.
 */
import { isAscii } from 'node:buffer'
import { writeSync } from 'node:fs'
import type { Socket } from 'node:net'

/** Strings at least this long (UTF-16 units) cross beside the JSON line instead of escaped inside it. */
export const LIFT_MIN_CHARS = 512

/** Strings under more keys than this stay inside the JSON (a cycle then fails as JSON.stringify fails it). */
export const MAX_LIFT_DEPTH = 8

/** Strings whose path's keys are longer than this together (characters) stay inside the JSON. */
export const MAX_PATH_CHARS = 64

/** A key of a path into a message: an object's key or an array's index. */
export type Key = string | number


/** A frame: one string (UTF-8), or a header line and the lifted strings' bytes (written together). */
export type Frame = string | readonly (string | Buffer)[]


/**
 * One frame for `message`: a line of JSON, and after it the lifted strings (see the module
 * comment). The frame of a message without long strings is `JSON.stringify(message) + '\n'`.
 * @throws TypeError what `JSON.stringify` throws (a BigInt, a cycle) or for a message it drops
 *   (`undefined`, a function); RangeError for nesting too deep for it.
 */
export function encodeFrame(message: unknown): Frame {
  const paths: Key[][] = []
  const texts: string[] = []
  const stripped = lift(message, [], 0, paths, texts)
  if (texts.length === 0) {
    const json = JSON.stringify(message) as string | undefined
    if (json === undefined) throw new TypeError(`${typeof message} is not a message JSON can carry`)
    return `${json}\n`
  }
  // Each string's bytes: tried as UTF-8, which are its units when it is ASCII (as many bytes as
  // units, all ASCII: fast SIMD paths of V8 and Node), else UTF-16LE.
  const wide: number[] = []
  const strings: Buffer[] = []
  for (const text of texts) {
    const bytes = Buffer.allocUnsafe(text.length)
    const ascii = bytes.write(text, 'utf8') === text.length && isAscii(bytes)
    wide.push(ascii ? 0 : 1)
    strings.push(ascii ? bytes : Buffer.from(text, 'utf16le'))
  }
  return [`#${JSON.stringify({ m: stripped, p: paths, n: texts.map((text) => text.length), w: wide })}\n`, ...strings]
}

/**
 * Sends `message` as one frame on `socket` (either end of the channel); false when the socket
 * is no longer writable or the message cannot be encoded (see {@link encodeFrame}).
 */
export function sendFrame(socket: Socket, message: unknown, fd?: number): boolean {
  if (!socket.writable) return false
  let frame: Frame
  try {
    frame = encodeFrame(message)
  } catch {
    return false
  }
  writeFrame(socket, frame, fd)
  return true
}

/**
 * Writes `frame` to `socket` in one go (one `writev` for a frame with lifted strings). With `fd`
 * (the socket's own descriptor), a one-line frame is written with `write(2)` directly while the
 * socket has nothing queued: no stream request, callback or tick a message (issue 12); what the
 * kernel does not take then is queued on the socket behind it, so the order stays.
 */
function writeFrame(socket: Socket, frame: Frame, fd: number | undefined): void {
  if (typeof frame === 'string') {
    if (fd !== undefined && socket.writableLength === 0) return writeDirect(socket, frame, fd)
    socket.write(frame)
    return
  }
  socket.cork()
  for (const chunk of frame) socket.write(chunk)
  socket.uncork()
}

function writeDirect(socket: Socket, frame: string, fd: number): void {
  let written: number
  try {
    written = writeSync(fd, frame)
  } catch {
    written = 0 // EAGAIN (the socket's buffer is full) or the like: the socket handles it.
  }
  if (written === 0) socket.write(frame)
  else if (written < frame.length || written < Buffer.byteLength(frame)) socket.write(Buffer.from(frame).subarray(written))
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

/** `target[key] = value` as an own data property, even for the key `__proto__` (as JSON.parse makes it). */
export function defineData(target: object, key: Key, value: unknown): void {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true })
}
