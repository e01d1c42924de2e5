/**
 * Reading MCP stdio messages (`src/mcp/line-buffer.ts`): the host's thread time to take one long
 * line as the pipe delivers it, with the SDK's `ReadBuffer` (the baseline: it copies and searches
 * everything held for every chunk) and with `LineBuffer` (each byte searched and copied once).
 * An imported MCP server's big result, or a client's big request to `ptc serve --stdio`, is read
 * on the thread every session shares.
 */
import { ReadBuffer } from '@modelcontextprotocol/sdk/shared/stdio.js'
import { LineBuffer } from '../src/mcp/line-buffer.ts'
import { section, type BenchCase } from './harness.ts'

const MESSAGE = Buffer.from(`${JSON.stringify({ jsonrpc: '2.0', id: 1, result: { text: 'x'.repeat(4 * 2 ** 20) } })}\n`)

/** MESSAGE in `size`-byte chunks, as a pipe hands it over. */
const chunks = (size: number) => Array.from({ length: Math.ceil(MESSAGE.length / size) }, (_, index) => MESSAGE.subarray(index * size, (index + 1) * size))

/** One whole read of MESSAGE by a fresh `reader`, checking the message came out. */
function read(reader: () => { append(chunk: Buffer): void; readMessage(): unknown }, pieces: Buffer[]): () => void {
  return () => {
    const buffer = reader()
    let messages = 0
    for (const piece of pieces) {
      buffer.append(piece)
      while (buffer.readMessage() !== null) messages++
    }
    if (messages !== 1) throw new Error(`expected one message, read ${messages}`)
  }
}

const cases: BenchCase[] = [16 * 1024, 64 * 1024].flatMap((size) => [
  { name: `SDK ReadBuffer: a 4 MiB message in ${size / 1024} KiB chunks`, run: read(() => new ReadBuffer(), chunks(size)), baseline: size === 16 * 1024 },
  { name: `LineBuffer: a 4 MiB message in ${size / 1024} KiB chunks`, run: read(() => new LineBuffer(), chunks(size)) },
])

export const stdioLines = section('stdio lines (µs to read one 4 MiB MCP message)', cases, { samples: 5, iterations: 2, warmup: 1 })
