/**
 * Messages over a plain socket with framing of its own, for `npm run bench -- "call path"`: the
 * "leaner worker channel than process.send" issue 12 suggests, measured beside Node's IPC
 * (`bench/socket-echo.ts`). `v8`: each message a 4-byte little-endian length then its
 * `v8.serialize` bytes (structured clone, as Node's `serialization: 'advanced'`); `lines`: each
 * message one JSON text and a newline (as Node's default `'json'` IPC).
 */
import type { Socket } from 'node:net'
import { deserialize, serialize } from 'node:v8'

/** A framed socket: `send` writes one message; every whole message read goes to `onMessage`. */
export function openFrames(socket: Socket, framing: 'v8' | 'lines', onMessage: (message: unknown) => void): { send(message: unknown): void } {
  if (framing === 'lines') {
    let text = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => {
      text += chunk
      let end: number
      while ((end = text.indexOf('\n')) >= 0) {
        const line = text.slice(0, end)
        text = text.slice(end + 1)
        onMessage(JSON.parse(line))
      }
    })
    return { send: (message) => void socket.write(`${JSON.stringify(message)}\n`) }
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
