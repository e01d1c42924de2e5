/**
 * Reading a POST body for `ptc serve --http`: at most {@link MAX_BODY_BYTES}, refused as soon as
 * it is known to be larger, so a sender cannot make the server read (or hold) more.
 */
import type { IncomingMessage } from 'node:http'

/** Largest accepted request body, in bytes (4 MiB). */
export const MAX_BODY_BYTES = 4 * 1024 * 1024

/** Thrown by {@link readBody} for a body over {@link MAX_BODY_BYTES}. */
export class BodyTooLarge extends Error {}

/** Whether `req`'s Content-Length says its body is over {@link MAX_BODY_BYTES}. */
export function declaresTooLarge(req: IncomingMessage): boolean {
  return Number(req.headers['content-length']) > MAX_BODY_BYTES
}

/**
 * The body as text. @throws BodyTooLarge as soon as it is over {@link MAX_BODY_BYTES} (by its
 * Content-Length, or once that many bytes came): the rest is not read, and the 413 closes the
 * connection (a 300 MiB body was read to its end first, in a hostile trial).
 */
export function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    if (declaresTooLarge(req)) return reject(new BodyTooLarge())
    const chunks: Buffer[] = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size <= MAX_BODY_BYTES) return void chunks.push(chunk)
      req.off('data', onData)
      req.pause()
      reject(new BodyTooLarge())
    }
    req.on('data', onData)
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
  })
}
