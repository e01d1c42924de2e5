/**
 * `follow` (SPEC S11.6): a journal as server-sent events, from a byte offset on and then live as
 * `ptc serve` or `ptc run` appends to it. Each event is
 * `id: <next offset>` / `event: records` / `data: {"records": [...], "next": N}`; a client that
 * reconnects passes the last `next` as `?offset=` and misses nothing. Appends are noticed through
 * `fs.watch` (inotify), with a one-second poll as the fallback; a comment line every 15 s keeps
 * proxies from closing an idle stream.
 */
import { watch, type FSWatcher } from 'node:fs'
import type { ServerResponse } from 'node:http'
import type { OpenJournal } from './journal-folder.ts'
import { readRecords } from './read-records.ts'

/** How often the file is checked when no change was signalled, in ms. */
export const FOLLOW_POLL_MS = 1000
/** How often an idle stream gets a keep-alive comment, in ms. */
export const FOLLOW_KEEPALIVE_MS = 15_000

/**
 * Stream `journal` from byte `offset` into `res` until the client goes away; then the journal is
 * closed. The caller has checked access and opened the journal; this writes the headers.
 */
export function followJournal(journal: OpenJournal, offset: number, res: ServerResponse): void {
  res.writeHead(200, {
    'Content-Type': 'text/event-stream; charset=utf-8',
    'Cache-Control': 'no-store',
    'X-Accel-Buffering': 'no',
  })
  res.write(': following\n\n')
  let next = offset
  let reading = false
  let again = false
  let done = false
  const pump = () => {
    if (done) return
    if (reading) {
      again = true
      return
    }
    reading = true
    try {
      do {
        again = false
        for (;;) {
          const page = readRecords(journal.fd, next)
          if (page.next === next) break
          next = page.next
          res.write(`id: ${next}\nevent: records\ndata: ${JSON.stringify(page)}\n\n`)
        }
      } while (again && !done)
    } catch (error) {
      res.write(`event: failure\ndata: ${JSON.stringify({ message: `Could not read the journal: ${(error as Error).message}` })}\n\n`)
      stop()
      res.end()
    } finally {
      reading = false
    }
  }
  let watcher: FSWatcher | undefined
  try {
    watcher = watch(journal.real, { persistent: false }, pump)
    watcher.on('error', () => {})
  } catch {
    watcher = undefined // the poll below still notices appends
  }
  const poll = setInterval(pump, FOLLOW_POLL_MS)
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), FOLLOW_KEEPALIVE_MS)
  const stop = () => {
    if (done) return
    done = true
    watcher?.close()
    clearInterval(poll)
    clearInterval(keepAlive)
    journal.close()
  }
  res.once('close', stop)
  pump()
}
