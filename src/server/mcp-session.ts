/**
 * One MCP session (SPEC S9, S8.2, S10): an SDK `Server` bound to one client connection, with its
 * own agent identity (`mcp-<uuid>`), journal file, spill folder (run_code spills per agent) and
 * jobs (owned by the agent). Per-session state lives in a cordis fiber, so closing the session
 * removes its journal and approval responder, aborts its calls still running and kills its
 * background jobs.
 *
 * Every `tools/call` goes through `ctx.tools.execute` (the whole pipeline) with the session's
 * agent and the request's `AbortSignal` (an MCP `notifications/cancelled` aborts it: the isolate is
 * disposed and in-flight tool calls are aborted). `run_code` executions wait for a slot of the
 * server-wide {@link RunLimiter}; when its queue or this session's share is full the call is an
 * immediate `isError` result. A request that carries a `progressToken` gets `notifications/progress`
 * while it runs (see `run-progress.ts`).
 */
import { randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { CallToolRequestSchema, CancelledNotificationSchema, ErrorCode, ListToolsRequestSchema, type RequestId } from '@modelcontextprotocol/sdk/types.js'
import type { Context, Fiber } from 'cordis'
import { DISPOSE_DRAIN_MS, trackOpenCalls } from '../host/open-calls.ts'
import { cancelledInFlight, requestEndedUnanswered } from '../mcp/in-flight-ids.ts'
import { sdkRequestControllers } from '../mcp/sdk-internals.ts'
import * as journal from '../journal/journal.ts'
import type { JournalRetention } from '../journal/journal-retention.ts'
import { PACKAGE_NAME, PACKAGE_VERSION } from '../package-version.ts'
import { RUN_CODE } from '../ptc/ptc-service.ts'
import { checkParams, methodOnly, onRequest } from './checked-params.ts'
import { elicitApproval } from './elicit-approval.ts'
import { exposedTools, mcpToolList, objectOutputSchema, toCallToolResult } from './exposed-tools.ts'
import { RunRefused, type RunLimiter } from './run-limiter.ts'
import { reportProgress } from './run-progress.ts'

/** Server-wide options every session shares. */
export interface SessionOptions {
  /** Expose every registered tool, not just run_code and the job tools. */
  exposeTools: boolean
  limiter: RunLimiter
  /** Folder of the per-session journals (`<stamp>-mcp-<session id>.jsonl`); `false` for none. */
  journalDir: string | false
  /**
   * Retention of `journalDir`, applied each time a session opens its journal (never to a journal
   * of a session still open); default none (`createHost`'s `journalRetention` is what `ptc serve` passes).
   */
  journalRetention?: JournalRetention | false
  /** Time a person has to answer an approval prompt, in ms. */
  approvalTimeoutMs?: number
  /** Progress heartbeat of a call that asked for progress, in ms (default 5000, see `run-progress.ts`). */
  progressHeartbeatMs?: number
  /**
   * The signal of the connection carrying the request being handled, aborted when it drops before
   * the answer is written (Streamable HTTP: a client gone without a DELETE); its calls stop then.
   */
  connectionSignal?: () => AbortSignal | undefined
}

const INSTRUCTIONS =
  'Use run_code to run TypeScript that calls tools as `await tools.name(args)` and returns a JSON value; ' +
  'its description lists every callable tool with exact argument and result types.'

/** An open session: connect `server` to a transport, `close()` when the connection ends. */
export interface McpSession {
  /** The MCP session id (made up for stdio). */
  readonly sessionId: string
  /** `mcp-<session id>`: the agent of every call this session makes. */
  readonly agent: string
  readonly server: Server
  /**
   * Abort the session's running calls and wait, up to {@link DISPOSE_DRAIN_MS}, for them to end,
   * so each is answered to its client and journaled with its result (a run's inner calls too);
   * then dispose its fiber (journal, approval) and kill its background jobs
   * (`ctx.jobs.disposeOwner`). Idempotent.
   */
  close(): Promise<void>
}

/**
 * Open a session on `ctx` (a context that injects `tools`, `ptc` and `approval`). `sessionId` is
 * the MCP session id (Streamable HTTP's `Mcp-Session-Id`); stdio has none, so one is made up. The
 * agent is `mcp-<session id>`, and the journal file and every record carry the id.
 * @returns the session; nothing is connected yet.
 */
export async function openSession(ctx: Context, options: SessionOptions, sessionId: string = randomUUID()): Promise<McpSession> {
  const agent = `mcp-${sessionId}`
  const server = new Server({ name: PACKAGE_NAME, title: 'ptc-runner', version: PACKAGE_VERSION }, { capabilities: { tools: {} }, instructions: INSTRUCTIONS })
  const stop = new AbortController()
  // The MCP request each top-level call belongs to, by call id (child ids are `${callId}/…`).
  const requests = new Map<string, RequestId>()
  /** The calls being answered, settled when each handler has its answer: `close()` waits for them. */
  const answering = new Set<Promise<unknown>>()
  let counter = 0

  const fiber: Fiber = ctx.plugin({
    name: `mcp-session:${agent}`,
    inject: ['tools', 'ptc', 'approval'],
    apply: (session: Context) => {
      if (options.journalDir !== false) {
        const stamp = new Date().toISOString().replace(/[:.]/g, '-')
        const retention = options.journalRetention
        session.plugin(journal, { file: join(options.journalDir, `${stamp}-${agent}.jsonl`), agent, session: sessionId, ...(retention && { retention }) })
      }
      session.approval.respond(
        elicitApproval({
          server,
          agent,
          relatedRequest: (callId) => requests.get(callId.split('/')[0]!),
          ...(options.approvalTimeoutMs !== undefined && { timeoutMs: options.approvalTimeoutMs }),
        }),
      )
    },
  })
  await fiber
  const session = fiber.ctx
  // This session's calls still open, a run's calls from code included: `close()` waits for them.
  const openCalls = trackOpenCalls(session, agent)

  server.setRequestHandler(methodOnly('tools/list'), async (raw) => {
    checkParams(ListToolsRequestSchema, raw)
    const exposed = exposedTools(session.tools, options)
    const declarations = exposed.some((tool) => tool.name === RUN_CODE) ? await session.ptc.declarations({ embedded: true }) : ''
    return { tools: mcpToolList(session.tools, exposed, declarations) }
  })

  // Cancellation of tools/call is ours, not the SDK's. A cancel stops the request with its id in
  // flight when the cancel arrives, and nothing else. The SDK handles a cancel a microtask after
  // it arrives and a request's handler two, so a cancel sent just after its request (one stdio
  // chunk, one batch) finds no call running yet (the SDK dropped it: the run went on holding a run
  // slot): the transport marks the claim of the request a cancel names (`in-flight-ids.ts`), and
  // the handler reads that mark when it starts. A cancel for any other id (answered, unknown, not
  // a tools/call) is ignored, as MCP "Cancellation" allows, so it never stops a later request
  // reusing the id. A cancelled request gets no answer (MCP: the receiver SHOULD NOT respond): the
  // SDK sends none for a request whose own controller was aborted, which its cancel handler,
  // replaced here, did. Over Streamable HTTP the SDK (1.32) would then leave that request's event
  // stream open (its transport ends a POST's stream only once each request on it is answered), so
  // `requestEndedUnanswered` ends it when the cancelled request was the only one on it.
  const callControllers = new Map<RequestId, AbortController>()
  const silence = (requestId: RequestId, reason: unknown) => sdkRequestControllers(server)?.get(requestId)?.abort(reason)
  server.setNotificationHandler(CancelledNotificationSchema, (notification) => {
    const { requestId, reason } = notification.params
    // Passes the SDK's schema (requestId is optional there, for tasks), but names no request: the
    // SDK's onerror gets it, so `ptc serve --stdio` says so on stderr (never answered).
    if (requestId === undefined) throw ignoredNotification('notifications/cancelled: params.requestId is missing, so there is no request to cancel')
    const controller = callControllers.get(requestId)
    if (controller === undefined) return
    controller.abort(reason ?? 'cancelled by the client')
    silence(requestId, reason)
  })

  // On the Protocol, past the Server's own tools/call wrapper, which answered bad params with
  // zod's issue list as the message and parsed every result once more (checkParams and
  // toCallToolResult do both here).
  onRequest(server, methodOnly('tools/call'), async (raw, extra) => {
    const request = checkParams(CallToolRequestSchema, raw)
    const { name, arguments: args } = request.params
    const tool = exposedTools(session.tools, options).find((candidate) => candidate.name === name)
    if (!tool) throw unknownTool(name, exposedTools(session.tools, options), session.ptc.visibleTools().some((visible) => visible.name === name))
    const callId = `${agent}.${++counter}`
    const transport = server.transport
    const cancel = new AbortController()
    const early = cancelledInFlight(transport, extra.requestId)
    if (early !== undefined) {
      cancel.abort(early.reason ?? 'cancelled by the client')
      silence(extra.requestId, cancel.signal.reason)
    }
    callControllers.set(extra.requestId, cancel)
    const connection = options.connectionSignal?.()
    const signal = AbortSignal.any(connection === undefined ? [extra.signal, stop.signal, cancel.signal] : [extra.signal, stop.signal, cancel.signal, connection])
    requests.set(callId, extra.requestId)
    // A request with a progressToken gets notifications/progress while it runs (start, its calls
    // from code, heartbeats), so a client that resets its timeout on progress keeps it alive.
    const progressToken = request.params._meta?.progressToken
    const progress =
      progressToken === undefined
        ? undefined
        : reportProgress({
            ctx: session,
            callId,
            tool: name,
            send: (update) => extra.sendNotification({ method: 'notifications/progress', params: { progressToken, ...update } }),
            ...(options.progressHeartbeatMs !== undefined && { heartbeatMs: options.progressHeartbeatMs }),
          })
    let answered!: () => void
    const answer = new Promise<void>((resolve) => (answered = resolve))
    answering.add(answer)
    try {
      const execute = () => session.tools.execute({ callId, name, arguments: args ?? {} }, { agent, signal })
      let result
      try {
        // A call whose arguments fail validation never runs a script: the pipeline refuses it at
        // once, so it takes no run slot (an operator's trial saw six bad calls, sent while the
        // server warmed up, fill the session's four and the last two told "4 running").
        const runsScript = name === RUN_CODE && tool.parameters.safeParse(args ?? {}).success
        result = runsScript ? await options.limiter.run(execute, agent, signal) : await execute()
      } catch (error) {
        // The queue (or this session's share of it) is full: fail fast, the client may retry.
        if (error instanceof RunRefused) return { content: [{ type: 'text' as const, text: error.message }], isError: true }
        // Cancelled while it waited for a run slot: it never ran.
        if (signal.aborted) return { content: [{ type: 'text' as const, text: 'The call was cancelled before it started; nothing was run.' }], isError: true }
        throw error
      }
      return toCallToolResult(result, { objectOutput: objectOutputSchema(tool) !== undefined })
    } finally {
      progress?.stop()
      if (callControllers.get(extra.requestId) === cancel) callControllers.delete(extra.requestId)
      requests.delete(callId)
      answering.delete(answer)
      answered()
      // Silenced (cancelled): the SDK sends no answer, so its id is free only now that it has
      // ended, not when the cancel came (a request reusing it meanwhile took this one's answer).
      if (extra.signal.aborted) requestEndedUnanswered(transport, extra.requestId)
    }
  })

  let closing: Promise<void> | undefined
  return {
    sessionId,
    agent,
    server,
    close: () =>
      (closing ??= (async () => {
        stop.abort()
        // S11.1: the aborted calls end a moment later (a sandboxed command's process group is
        // killed); their answers and journal records come before the fiber (the journal) goes.
        let timer: NodeJS.Timeout | undefined
        const limit = new Promise((resolve) => (timer = setTimeout(resolve, DISPOSE_DRAIN_MS)))
        await Promise.race([Promise.all([...answering, openCalls.drained(DISPOSE_DRAIN_MS)]), limit])
        clearTimeout(timer)
        await fiber.dispose()
        // S10.5 owner dispose: the session's background jobs end with it (they are owned by the
        // agent, not by the session fiber, so disposing the fiber alone would leave them running).
        const jobs = ctx.reflect.get('jobs') as Context['jobs'] | undefined
        await jobs?.disposeOwner(agent)
      })()),
  }
}

/**
 * The JSON-RPC error (InvalidParams, -32602) for a `tools/call` of a tool this session does not
 * expose. Not an `McpError`: its message already starts `MCP error -32602:`, the SDK sends the
 * message as it is, and the client's SDK prefixes it once more (`MCP error -32602: MCP error
 * -32602: …`); a plain error with a `code` goes on the wire as the bare sentence.
 */
function unknownTool(name: string, exposed: readonly { name: string }[], callableFromCode: boolean): Error {
  // A tool scripts may call (PtcConfig.visible) is reachable from run_code (an operator's trial read "unknown" for read_file); a hidden one is not named.
  const hint = callableFromCode ? ` "${name}" is callable from run_code's scripts as tools.${/^[A-Za-z_$][\w$]*$/.test(name) ? name : `[${JSON.stringify(name)}]`}(…), or directly when the server is started with --expose-tools.` : ''
  const message = `Unknown tool "${name}". This server exposes: ${exposed.map((tool) => tool.name).join(', ')}.${hint}`
  return Object.assign(new Error(message), { code: ErrorCode.InvalidParams })
}

/** A notification that is ignored, and why: `stdio-server.ts` reports it by this name. */
function ignoredNotification(message: string): Error {
  const error = new Error(message)
  error.name = 'IgnoredNotification'
  return error
}
