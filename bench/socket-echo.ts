/**
 * Round trips to a child process over a plain socket (fd 3) with framing of its own
 * (`socket-frames.ts`), the same messages as the bare IPC hop of `call-path.bench.ts`: with `json`,
 * the floor of the worker process's extra hop over the product's channel.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import type { Socket } from 'node:net'
import { resolve } from 'node:path'
import { openFrames } from './socket-frames.ts'

/** A started echo child: `send(message)` expects no answer (a `prime`), `roundTrip(message)` resolves with its answer; `close()` ends it. */
export interface SocketEcho {
  send(message: unknown): void
  roundTrip(message: unknown): Promise<unknown>
  close(): void
}

/** Starts `socket-echo-child.ts` with `framing`. */
export async function startSocketEcho(framing: 'v8' | 'json'): Promise<SocketEcho> {
  const child = spawn(process.execPath, [resolve(import.meta.dirname, 'socket-echo-child.ts'), framing], { stdio: ['ignore', 'inherit', 'inherit', 'pipe'] })
  await once(child, 'spawn')
  const socket = child.stdio[3] as Socket
  let answered: ((message: unknown) => void) | undefined
  const frames = openFrames(socket, framing, (message) => {
    const waiting = answered
    answered = undefined
    waiting?.(message)
  })
  return {
    send: (message) => frames.send(message),
    roundTrip: (message) =>
      new Promise((resolveAnswer) => {
        answered = resolveAnswer
        frames.send(message)
      }),
    close() {
      socket.end()
      child.kill()
    },
  }
}
