/**
 * Messages over a plain socket, for `npm run bench -- "call path"` (`bench/socket-echo.ts`):
 * `json`, the product's worker channel (`src/ptc/json-frames.ts`: JSON lines, long strings beside
 * them); `v8`, each message a 4-byte little-endian length then its `v8.serialize` bytes
 * (structured clone, as Node's `serialization: 'advanced'` IPC), the other framing measured.
 */
import type { Socket } from 'node:net'
import { deserialize, serialize } from 'node:v8'
import { hostFrames } from '../src/ptc/host-frames.ts'

/** A framed socket: `send` writes one message; every whole message read goes to `onMessage`. */
export function openFrames(socket: Socket, framing: 'v8' | 'json', onMessage: (message: unknown) => void): { send(message: unknown): void } {
  if (framing === 'json') {
    // The product's own end of the channel (`src/ptc/host-frames.ts`), as the host has it.
    const end = hostFrames(socket, onMessage, () => {
      throw new Error(`bench socket: ${end.problem}`)
    })
    return { send: (message) => void end.send(message) }
  }
  let buffered: Buffer = Buffer.alloc(0)
  socket.on('data', (chunk: Buffer) => {
    buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk])
    while (buffered.length >= 4 && buffered.length >= 4 + buffered.readUInt32LE(0)) {
      const length = buffered.readUInt32LE(0)
      const body = buffered.subarray(4, 4 + length)
      buffered = buffered.subarray(4 + length)
      onMessage(deserialize(body))
    }
  })
  return {
    send(message) {
      const body = serialize(message)
      const head = Buffer.allocUnsafe(4)
      head.writeUInt32LE(body.length, 0)
      socket.write(Buffer.concat([head, body]))
    },
  }
}
