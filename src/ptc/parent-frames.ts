/**
 * A worker process's end of its channel to the host (the isolate worker's and a checker's;
 * `startWorker` in `worker-channel.ts`, issue 12): JSON frames (`json-frames.ts`) over the socket
 * the host gave the worker as fd 3.
 */
import { Socket } from 'node:net'
import { FrameReader } from './frame-reader.ts'
import { sendFrame } from './json-frames.ts'

/** The worker's end of a worker process's channel (`worker-channel.ts`). */
export interface ParentFrames<Out> {
  /** Sends `message` to the host; false when the channel is closed or it cannot be encoded. */
  send(message: Out): boolean
}

/**
 * Opens the channel to the host on fd 3 (the socket `startWorker` gave this process). Every
 * message from the host goes to `onMessage`, in order; `onClose` is called once when the host
 * has gone (the socket ended or failed) or sent a frame that cannot be read. From then on the
 * process ignores SIGINT: its host stops it.
 * @throws Error when fd 3 is not a socket (the process was not started by `startWorker`).
 */
export function openParentFrames<In, Out>(onMessage: (message: In) => void, onClose: (why: string) => void): ParentFrames<Out> {
  let socket: Socket
  // Read into one buffer, handed straight to the reader: no buffer, stream chunk and 'data'
  // event a read (issue 12: part of a tool call's cost in the worker). Big enough for a 64 KB
  // result and its frame in one read.
  const onread = { buffer: Buffer.allocUnsafe(READ_BUFFER_BYTES), callback: (bytes: number, buffer: Uint8Array) => {
      reader.push(Buffer.from(buffer.buffer, buffer.byteOffset, bytes), true)
      return true
    },
  }
  try {
    socket = new Socket({ fd: 3, readable: true, writable: true, onread })
  } catch (error) {
    throw new Error(`this worker's fd 3 is not the host's socket (start it with startWorker, worker-channel.ts): ${(error as Error).message}`)
  }
  // A Ctrl-C at a terminal reaches the whole process group, this worker too: the host decides
  // what it stops (it cancels the run), and a worker ends when its channel closes. Dying of it
  // would turn a cancel into a crashed worker (a trial saw `WorkerCrashError ... signal SIGINT`).
  process.on('SIGINT', ignoreSignal)
  let closed = false
  const close = (why: string): void => {
    if (closed) return
    closed = true
    onClose(why)
  }
  const reader = new FrameReader(onMessage as (message: unknown) => void, (problem) => close(`the host sent a malformed message: ${problem}`))
  socket.on('end', () => close('the host closed the channel'))
  socket.on('close', () => close('the host closed the channel'))
  socket.on('error', (error) => close(`the channel failed: ${error.message}`))
  return {
    send: (message) => !closed && sendFrame(socket, message, 3),
  }
}

/** Bytes of the buffer the channel is read into (see {@link openParentFrames}). */
const READ_BUFFER_BYTES = 256 * 1024

/** SIGINT in a worker process: ignored (see {@link openParentFrames}). */
function ignoreSignal(): void {}
