/**
 * `ptc serve --stdio`: one MCP session over this process's stdin/stdout (the SDK's
 * `StdioServerTransport`, reading lines with `LineBuffer`). stdout belongs to the protocol, so
 * `console.log`/`info`/`debug` are sent to stderr while serving; the session ends when stdin ends
 * or the client closes.
 */
import type { Context } from 'cordis'
import { stdioServerTransport } from '../mcp/line-buffer.ts'
import { lateApprovalAnswer } from './elicit-approval.ts'
import { openSession, type SessionOptions } from './mcp-session.ts'

/** A running stdio server. */
export interface StdioServerHandle {
  /**
   * Settles when the session has ended (stdin closed, client closed, or `close()`): with why, when
   * it ended on a failure of its own (a line on stdin over the MCP SDK's 10 MiB limit), else undefined.
   */
  readonly closed: Promise<string | undefined>
  close(): Promise<void>
}

/** One line for an error the stdio transport reports (mostly a line that is not a JSON-RPC message). */
function stdinProblem(error: Error): string {
  // A notification whose params fail the SDK's schema (a notifications/cancelled without params):
  // it is ignored; say which field, not zod's issue list as a crash-like dump (an operator's trial).
  // A notification our own handler ignores says which and why (`ignoredNotification` in mcp-session.ts).
  const ignored = /^Uncaught error in notification handler: IgnoredNotification: ([\s\S]*)$/.exec(error.message)
  if (ignored !== null) return `ignored ${ignored[1]!.replaceAll(/\s+/g, ' ').slice(0, 300)}; the session goes on`
  const handler = /^Uncaught error in notification handler: ([\s\S]*)$/.exec(error.message)
  if (handler !== null) return `ignored a notification whose params are not valid (${issuesText(handler[1]!)}); the session goes on`
  const skipped = 'skipped a line on stdin that is not a JSON-RPC message (one JSON object a line)'
  // The SDK's schema check fails with zod's issue list: JSON, but no JSON-RPC 2.0 message.
  if (error.name === 'ZodError' || error.message.trimStart().startsWith('[')) return `${skipped}: it is JSON, but not a JSON-RPC 2.0 request, notification or response`
  const message = error.message.replaceAll(/\s+/g, ' ').slice(0, 300)
  return error.name === 'SyntaxError' ? `${skipped}: ${message}` : message
}

/** zod's issue list (JSON) as `params: expected object, received undefined; …`, else the text cut to 200 characters. */
function issuesText(text: string): string {
  try {
    const issues = JSON.parse(text) as { path?: unknown[]; message?: unknown }[]
    if (Array.isArray(issues) && issues.length > 0) return issues.slice(0, 3).map((issue) => `${(issue.path ?? []).join('.') || '(the message)'}: ${String(issue.message)}`).join('; ')
  } catch {}
  return text.replaceAll(/\s+/g, ' ').slice(0, 200)
}

/** Serve one session on stdin/stdout; `ctx` injects `tools`, `ptc` and `approval`. */
export async function serveStdio(ctx: Context, options: SessionOptions): Promise<StdioServerHandle> {
  const log = console.log
  const info = console.info
  const debug = console.debug
  console.log = console.info = console.debug = console.error
  const session = await openSession(ctx, options)
  const transport = stdioServerTransport()
  let finish!: (failure: string | undefined) => void
  const closed = new Promise<string | undefined>((resolve) => (finish = resolve))
  let failure: string | undefined
  let closing: Promise<void> | undefined
  const close = () =>
    (closing ??= (async () => {
      process.stdin.off('end', onEnd)
      await session.close()
      await session.server.close().catch(() => {})
      console.log = log
      console.info = info
      console.debug = debug
      finish(failure)
    })())
  const onEnd = () => void close()
  // The SDK transport does not watch for the end of stdin: a client that exits must end the session.
  process.stdin.once('end', onEnd)
  session.server.onclose = () => void close()
  // A line on stdin that is not a JSON-RPC message is skipped by the transport: say so on stderr,
  // where a client's developer looks, instead of dropping it silently. The session goes on.
  session.server.onerror = (error) => {
    // The SDK's stdio transport closes itself after a line over its buffer limit.
    const limit = /^ReadBuffer exceeded maximum size of (\d+)/.exec(error.message)?.[1]
    if (limit !== undefined) failure = `a line on stdin is longer than ${limit} bytes, the MCP SDK's limit for one message over stdio, so the session was closed`
    process.stderr.write(`ptc serve: ${limit !== undefined ? failure : (lateApprovalAnswer(session.server, error) ?? stdinProblem(error))}\n`)
  }
  await session.server.connect(transport)
  return { closed, close }
}
