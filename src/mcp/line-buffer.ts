/**
 * Reading MCP's stdio framing (one JSON-RPC message a line, MCP specification "Transports: stdio")
 * in time linear in the bytes read. The SDK's `ReadBuffer` (1.32) copies everything buffered into
 * a new buffer for every chunk and searches it all again for a newline, so one long message costs
 * the square of its size on the thread that reads it: an 11 MiB line read in 16 KiB chunks held
 * the host's thread 9 s, in 64 KiB chunks 0.6 s (`npm run bench -- "stdio lines"`). Here each byte
 * is searched once and each line copied once, when its newline arrives.
 */
import { StdioClientTransport, type StdioServerParameters } from '@modelcontextprotocol/sdk/client/stdio.js'
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import { serializeMessage, STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js'
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js'
import type { Readable, Writable } from 'node:stream'
import { refuseDuplicateIds } from './in-flight-ids.ts'
import { HEAD_BYTES, requestIdOf } from './request-id-of-line.ts'
import { type LineRefusal, readLine } from './line-messages.ts'
import { replaceSdkReadBuffer } from './sdk-internals.ts'

const NEWLINE = 0x0a

/**
 * Drop-in for the SDK's `ReadBuffer` (same methods, same error text, which `mcp-connection.ts`
 * and `stdio-server.ts` read for the limit). `append` throws `Error("ReadBuffer exceeded maximum
 * size of N bytes")` and forgets what it held once a line grows past `maxBytes` bytes (default
 * the SDK's 10 MiB); `readMessage` returns the next whole line's message, or null when none is
 * whole, skips blank lines, turns an invalid answer to a request into an error response, and
 * throws for any other line that is not a JSON-RPC message (the transports report it and read
 * on), after telling `onRefused` what to answer it (`line-messages.ts`).
 */
export class LineBuffer {
  readonly #maxBytes: number
  /** The pieces of the line still being read: the bytes after the last newline. */
  #partial: Buffer[] = []
  #partialBytes = 0
  /** Whole lines not yet read, oldest first from `#next`; a line dropped for its length is its start. */
  #lines: (Buffer | TooLong)[] = []
  #next = 0

  readonly #onRefused: ((refusal: LineRefusal) => void) | undefined
  readonly #skipLongLines: boolean
  /** The line that grew past the limit (`skipLongLines`), dropped until its newline, when its refusal is queued. */
  #skipping: TooLong | undefined

  /**
   * `onRefused` hears what to answer a line that is not a valid message, before `readMessage`
   * throws for it (see `readLine`: not JSON, a batch, a bad id, a request with an id that is not
   * a valid request): a server sends it, so the client's call does not wait forever.
   * `skipLongLines` (a server's): a line past `maxBytes` is dropped up to its newline and read as
   * a refused line (`onRefused` hears -32600 with the request's id when its first and last
   * `HEAD_BYTES` bytes show it, else a null id; then `readMessage` throws), and the lines after
   * it are read; otherwise `append` throws, which closes the transport.
   */
  constructor(maxBytes = STDIO_DEFAULT_MAX_BUFFER_SIZE, onRefused?: (refusal: LineRefusal) => void, skipLongLines = false) {
    this.#maxBytes = maxBytes
    this.#onRefused = onRefused
    this.#skipLongLines = skipLongLines
  }

  /** Takes one chunk of the stream (cut anywhere). @throws Error when a line exceeds the limit. */
  append(chunk: Buffer): void {
    let start = 0
    for (let newline = chunk.indexOf(NEWLINE); newline !== -1; newline = chunk.indexOf(NEWLINE, start)) {
      const piece = chunk.subarray(start, newline)
      start = newline + 1
      if (this.#skipping !== undefined || !this.#fits(this.#partialBytes + piece.length)) {
        // The end of a line too long to read: its refusal is read in its place.
        const tooLong = this.#skipping ?? this.#startSkipping(piece)
        if (this.#skipping !== undefined) tooLong.keepTail(piece)
        this.#lines.push(tooLong)
        this.#skipping = undefined
        continue
      }
      this.#lines.push(this.#partial.length === 0 ? piece : Buffer.concat([...this.#partial, piece], this.#partialBytes + piece.length))
      this.#partial = []
      this.#partialBytes = 0
    }
    if (start === chunk.length) return
    const rest = chunk.subarray(start)
    if (this.#skipping !== undefined) this.#skipping.keepTail(rest)
    else if (!this.#fits(this.#partialBytes + rest.length)) this.#skipping = this.#startSkipping(rest)
    else {
      this.#partial.push(rest)
      this.#partialBytes += rest.length
    }
  }

  /**
   * The next whole line's JSON-RPC message, or null. Blank lines (spaces, tabs, a CR) are skipped
   * rather than reported: they carry no message. An answer with an id that is not a valid
   * response becomes an error response for that id (`readLine`). @throws SyntaxError, ZodError or
   * Error for any other line that is not a message.
   */
  readMessage(): JSONRPCMessage | null {
    for (;;) {
      if (this.#next === this.#lines.length) {
        if (this.#next > 0) this.#lines = []
        this.#next = 0
        return null
      }
      const line = this.#lines[this.#next]!
      this.#lines[this.#next++] = EMPTY
      if (line instanceof TooLong) {
        const id = requestIdOf(line.head.toString('utf8'), line.tail.toString('utf8'))
        this.#onRefused?.({ id, code: -32600, message: `Invalid Request: a line longer than ${this.#maxBytes} bytes (the most one message over stdio may take) was skipped; send smaller messages` })
        throw new Error(`skipped a line on stdin longer than ${this.#maxBytes} bytes, the MCP SDK's limit for one message over stdio; the session goes on`)
      }
      const end = line.length > 0 && line[line.length - 1] === 0x0d ? line.length - 1 : line.length
      const text = line.toString('utf8', 0, end)
      if (BLANK.test(text)) continue
      const reading = readLine(text)
      if ('message' in reading) return reading.message
      if (reading.refusal !== undefined) this.#onRefused?.(reading.refusal)
      throw reading.error
    }
  }

  /** Forgets everything buffered. */
  clear(): void {
    this.#partial = []
    this.#partialBytes = 0
    this.#lines = []
    this.#next = 0
    this.#skipping = undefined
  }

  /**
   * Whether a line of `bytes` fits.
   * @throws Error (the SDK's text) without `skipLongLines`, after forgetting everything held.
   */
  #fits(bytes: number): boolean {
    if (bytes <= this.#maxBytes) return true
    if (!this.#skipLongLines) {
      this.clear()
      throw new Error(`ReadBuffer exceeded maximum size of ${this.#maxBytes} bytes`)
    }
    return false
  }

  /** The line held so far and `piece`, its next bytes, grew past the limit: keep its start and end (a {@link TooLong}), forget the rest. */
  #startSkipping(piece: Buffer): TooLong {
    const tooLong = new TooLong([...this.#partial, piece])
    this.#partial = []
    this.#partialBytes = 0
    return tooLong
  }
}

const EMPTY = Buffer.alloc(0)

/** Queued in place of a line dropped for its length (`skipLongLines`): its first and last `HEAD_BYTES` bytes, for the request's id. */
class TooLong {
  readonly head: Buffer
  tail = EMPTY

  /** `held`: the line's pieces read so far. */
  constructor(held: readonly Buffer[]) {
    const pieces: Buffer[] = []
    let kept = 0
    for (const piece of held) {
      if (kept >= HEAD_BYTES) break
      pieces.push(piece.subarray(0, HEAD_BYTES - kept))
      kept += pieces.at(-1)!.length
    }
    this.head = Buffer.concat(pieces)
    for (const piece of held) this.keepTail(piece)
  }

  /** The line goes on with `piece`: keep the last `HEAD_BYTES` bytes (copied: the chunk is not held). */
  keepTail(piece: Buffer): void {
    const joined = Buffer.concat([this.tail, piece.subarray(Math.max(0, piece.length - HEAD_BYTES))])
    this.tail = joined.length > HEAD_BYTES ? Buffer.from(joined.subarray(joined.length - HEAD_BYTES)) : joined
  }
}
const BLANK = /^[ \t\r]*$/

/**
 * The SDK's `StdioClientTransport` for `parameters`, reading with a {@link LineBuffer} of their
 * `maxBufferSize` (default 10 MiB): what `mcp-connection.ts` starts an imported server with.
 */
export function stdioClientTransport(parameters: StdioServerParameters): StdioClientTransport {
  const transport = new StdioClientTransport(parameters)
  useLineBuffer(transport, parameters.maxBufferSize)
  return transport
}

/**
 * The SDK's `StdioServerTransport` on `stdin`/`stdout` (default this process's), reading with a
 * {@link LineBuffer}: `ptc serve --stdio`'s. A line it cannot read is answered with JSON-RPC's
 * error for it (`readLine`: -32700 for a line that is not JSON, -32600 for an invalid request).
 * It stops reading requests while the client is not reading its answers: once a send leaves
 * stdout over its high-water mark, stdin is paused until stdout drains. The SDK's transport went on reading, running and buffering, so a client that
 * never read stdout made the server hold every answer in memory (705 MB measured in a hostile
 * trial); now what it holds is bounded by the requests already read, and the client's own writes
 * block once the stdin pipe is full. An answer over the client's 10 MiB limit is replaced by one
 * saying so ({@link withinClientLimit}). A request whose id is that of a request still in flight
 * is answered -32600 and not delivered (`in-flight-ids.ts`).
 */
export function stdioServerTransport(stdin: Readable = process.stdin, stdout: Writable = process.stdout): StdioServerTransport {
  const transport = new StdioServerTransport(stdin, stdout)
  // JSON-RPC's answer for a line it cannot read may carry a null id, which the SDK's types do not allow.
  // It goes through the send below, not the one refuseDuplicateIds wraps: that line claimed no id,
  // so its answer must not free the id of a request in flight that has the same id.
  let sendUnwatched!: StdioServerTransport['send']
  useLineBuffer(transport, undefined, ({ id, code, message }) => void sendUnwatched({ jsonrpc: '2.0', id, error: { code, message } } as JSONRPCMessage), true)
  // The SDK's send (1.32), with the answer's size checked and the backpressure above. Every send
  // made while stdout is full waits for the same drain: one listener, not one a send (601 answers
  // to a client that did not read had Node warn of 11 'drain' listeners, a hostile trial).
  let drained: Promise<void> | undefined
  transport.send = (message) => {
    if (stdout.write(withinClientLimit(message, serializeMessage(message)))) return Promise.resolve()
    drained ??= new Promise<void>((resolve) => {
      stdin.pause()
      stdout.once('drain', () => {
        drained = undefined
        // Not after the transport closed: it removed its reader, and reading on would keep the process alive.
        if (stdin.listenerCount('data') > 0) stdin.resume()
        resolve()
      })
    })
    return drained
  }
  sendUnwatched = transport.send
  refuseDuplicateIds(transport)
  return transport
}

/**
 * `json` (the line for `message`), or, when it is over the 10 MiB an MCP client reads in one
 * message over stdio (the SDK's `STDIO_DEFAULT_MAX_BUFFER_SIZE`, which its client enforces), the
 * line of an answer saying so for the same request: a tool result with `isError` for a
 * `tools/call`, else a JSON-RPC error. The client would otherwise drop the whole connection (a
 * run's value of 8 MiB of JSON and its 1 MiB of logs full of control characters, 6 bytes each as
 * JSON escapes, made a 12 MB answer in a hostile trial).
 */
function withinClientLimit(message: JSONRPCMessage, json: string): string {
  if (json.length * 3 <= STDIO_DEFAULT_MAX_BUFFER_SIZE) return json
  const bytes = Buffer.byteLength(json)
  if (bytes <= STDIO_DEFAULT_MAX_BUFFER_SIZE || !('id' in message) || !('result' in message)) return json
  const text = `ptc serve: this answer is ${(bytes / 2 ** 20).toFixed(1)} MiB of JSON, over the ${STDIO_DEFAULT_MAX_BUFFER_SIZE / 2 ** 20} MiB an MCP client reads in one message over stdio, so it was not sent. Return a smaller value from the script (control characters take 6 bytes each as JSON), or serve over HTTP (ptc serve --http), which has no such limit.`
  const isToolResult = Array.isArray((message.result as { content?: unknown }).content)
  return serializeMessage(isToolResult ? { jsonrpc: '2.0', id: message.id, result: { content: [{ type: 'text', text }], isError: true } } : { jsonrpc: '2.0', id: message.id, error: { code: -32603, message: text } })
}

/**
 * Puts a {@link LineBuffer} of `maxBytes` (default the SDK's 10 MiB) in place of an SDK stdio
 * transport's `ReadBuffer`, before it starts (`replaceSdkReadBuffer`, a private field). Should a
 * later SDK have none, the transport keeps its own and this returns false
 * (`test/unit/mcp/sdk-internals.test.ts` and `line-buffer.test.ts` then fail, so an upgrade that
 * drops the linear reading is noticed, while users of that SDK still get a working, if slower,
 * transport).
 */
export function useLineBuffer(transport: StdioClientTransport | StdioServerTransport, maxBytes?: number, onRefused?: (refusal: LineRefusal) => void, skipLongLines = false): boolean {
  return replaceSdkReadBuffer(transport, new LineBuffer(maxBytes, onRefused, skipLongLines))
}
