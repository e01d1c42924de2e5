/**
 * `ptc serve --stdio`: one MCP session over this process's stdin/stdout (the SDK's
 * `StdioServerTransport`). stdout belongs to the protocol, so `console.log`/`info`/`debug` are sent
 * to stderr while serving; the session ends when stdin ends or the client closes.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js'
import type { Context } from 'cordis'
import { openSession, type SessionOptions } from './mcp-session.ts'

/** A running stdio server. */
export interface StdioServerHandle {
  /** Settles when the session has ended (stdin closed, client closed, or `close()`). */
  readonly closed: Promise<void>
  close(): Promise<void>
}

/** Serve one session on stdin/stdout; `ctx` injects `tools`, `ptc` and `approval`. */
export async function serveStdio(ctx: Context, options: SessionOptions): Promise<StdioServerHandle> {
  const log = console.log
  const info = console.info
  const debug = console.debug
  console.log = console.info = console.debug = console.error
  const session = await openSession(ctx, options)
  const transport = new StdioServerTransport()
  let finish!: () => void
  const closed = new Promise<void>((resolve) => (finish = resolve))
  let closing: Promise<void> | undefined
  const close = () =>
    (closing ??= (async () => {
      process.stdin.off('end', onEnd)
      await session.close()
      await session.server.close().catch(() => {})
      console.log = log
      console.info = info
      console.debug = debug
      finish()
    })())
  const onEnd = () => void close()
  // The SDK transport does not watch for the end of stdin: a client that exits must end the session.
  process.stdin.once('end', onEnd)
  session.server.onclose = () => void close()
  await session.server.connect(transport)
  return { closed, close }
}
