/**
 * The host's end of a worker process's channel (`worker-channel.ts`; issue 12): JSON frames
 * (`json-frames.ts`) over the socket that is the worker's fd 3. Whatever the worker writes there,
 * the host never throws for it: a frame that cannot be read, or that reads but is no message the
 * owner can handle, stops the worker, and {@link HostFrames.problem} says why.
 */
import type { Socket } from 'node:net'
import { FrameReader } from './frame-reader.ts'
import { sendFrame } from './json-frames.ts'

/** The host's end of one worker's channel. */
export interface HostFrames {
  /** Sends `message`; false when the socket is closed or the message cannot be encoded. */
  send(message: unknown): boolean
  /** Why the worker was stopped for what it wrote (`undefined` while it has not been). */
  readonly problem: string | undefined
  /** Whether the socket keeps this process's event loop alive. */
  setRef(ref: boolean): void
}

/**
 * Reads `socket` for `onMessage` (in order). `stop` is called once the worker wrote something
 * that cannot be read or that `onMessage` throws on; nothing more is delivered after it.
 */
export function hostFrames(socket: Socket, onMessage: (message: unknown) => void, stop: () => void, maxBytes?: number): HostFrames {
  let problem: string | undefined
  const fail = (why: string): void => {
    if (problem !== undefined) return
    problem = why
    stop()
  }
  const reader = new FrameReader((message) => {
    if (problem !== undefined) return
    try {
      onMessage(message)
    } catch (error) {
      // A frame that reads but is not a message the owner can handle (a worker's own bytes).
      fail(`its message could not be handled: ${(error as Error)?.message ?? String(error)}`.slice(0, 300))
    }
  }, fail, maxBytes)
  socket.on('data', (chunk: Buffer) => reader.push(chunk))
  // A write to a worker that died fails with EPIPE: the worker's 'exit' reports the death.
  socket.on('error', () => {})
  return {
    get problem() {
      return problem
    },
    send: (message) => sendFrame(socket, message),
    setRef(ref) {
      if (ref) socket.ref()
      else socket.unref()
    },
  }
}
