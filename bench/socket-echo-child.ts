/**
 * The far end of `socket-echo.ts`'s round trips: echoes every message it reads on fd 3 (a socket
 * its parent made) back on the same socket, framed as it came (`v8`: a 4-byte little-endian
 * length and `v8.serialize`'s bytes; `json`: the product's JSON frames). As `ipc-echo-child.ts`, a
 * `{ type: 'prime', reply }` message is kept, and each later `{ type: 'reply' }` is answered
 * with its `reply`. Exits when the socket ends. Argument: the framing.
 */
import { Socket } from 'node:net'
import { openFrames } from './socket-frames.ts'

const framing = process.argv[2] === 'json' ? 'json' : 'v8'
let reply: unknown
const socket = new Socket({ fd: 3, readable: true, writable: true })
const frames = openFrames(socket, framing, (message) => {
  const { type } = message as { type?: string; reply?: unknown }
  if (type === 'prime') reply = (message as { reply: unknown }).reply
  else frames.send(type === 'reply' ? reply : message)
})
socket.on('end', () => process.exit(0))
