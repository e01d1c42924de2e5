/**
 * MCP progress for one `tools/call` (SPEC S9.4 service mode): while the call runs, tell the client
 * how it advances, so a client that resets its request timeout on progress (the SDK's
 * `resetTimeoutOnProgress`) keeps a long `run_code` alive instead of cancelling it at its timeout.
 *
 * What is reported: the start, each tool call of the run starting and finishing (calls from code
 * have ids `<callId>/<pairing id>`, S9.5), throttled to one notification per `minIntervalMs`
 * (events in between are summed up in the next one, sent at the end of the interval), and a
 * heartbeat when nothing was sent for `heartbeatMs`. `progress` is the time since the call
 * started in ms, strictly increasing as MCP requires; there is no `total` (a script's length is not
 * known); `message` says what happened, e.g. `3 tool calls started, 2 finished; last: read_file
 * finished`.
 */
import type { Context } from 'cordis'

/** Default gap after which a heartbeat is sent, in ms. */
export const DEFAULT_PROGRESS_HEARTBEAT_MS = 5_000
/** Default least gap between two notifications, in ms (at most 4 a second). */
export const DEFAULT_PROGRESS_MIN_INTERVAL_MS = 250

/** One `notifications/progress` payload, without the token. */
export interface ProgressUpdate {
  /** Time since the call started, in ms; strictly increasing. */
  progress: number
  message: string
}

/** Options of {@link reportProgress}. */
export interface ReportProgressOptions {
  /** A context whose `tool/call` and `tools/result` events include the run's calls. */
  ctx: Context
  /** The id of the outer call; its calls from code have ids `<callId>/…`. */
  callId: string
  /** The tool the client called (named in the messages). */
  tool: string
  /** Send one notification; a failure (the client went away) is ignored. */
  send: (update: ProgressUpdate) => Promise<void> | void
  heartbeatMs?: number
  minIntervalMs?: number
}

/** A running reporter: `stop()` ends it (idempotent); nothing is sent after that. */
export interface ProgressReporter {
  stop(): void
}

/** Start reporting; the first notification (`started`) is sent at once. */
export function reportProgress(options: ReportProgressOptions): ProgressReporter {
  const heartbeatMs = options.heartbeatMs ?? DEFAULT_PROGRESS_HEARTBEAT_MS
  const minIntervalMs = options.minIntervalMs ?? DEFAULT_PROGRESS_MIN_INTERVAL_MS
  const prefix = `${options.callId}/`
  const startedAt = Date.now()
  let started = 0
  let finished = 0
  let failed = 0
  let last = `${options.tool} started`
  let lastProgress = -1
  let lastSentAt = -Infinity
  let trailing: NodeJS.Timeout | undefined
  let heartbeat: NodeJS.Timeout | undefined
  let stopped = false

  const message = () => {
    if (started === 0) return last
    const counts = `${started} tool call${started === 1 ? '' : 's'} started, ${finished} finished${failed > 0 ? ` (${failed} failed)` : ''}`
    return `${counts}; last: ${last}`
  }
  const sendNow = (note?: string) => {
    if (stopped) return
    clearTimeout(trailing)
    trailing = undefined
    clearTimeout(heartbeat)
    heartbeat = setTimeout(() => sendNow(`${options.tool} running for ${Math.round((Date.now() - startedAt) / 1000)} s`), heartbeatMs)
    const now = Date.now()
    lastSentAt = now
    lastProgress = Math.max(now - startedAt, lastProgress + 1)
    const text = note ? `${message()} (${note})` : message()
    try {
      void Promise.resolve(options.send({ progress: lastProgress, message: text })).catch(() => {})
    } catch {
      // The transport is gone; the call ends on its own.
    }
  }
  const changed = () => {
    if (stopped || trailing) return
    const wait = lastSentAt + minIntervalMs - Date.now()
    if (wait <= 0) sendNow()
    else trailing = setTimeout(sendNow, wait)
  }

  const offCall = options.ctx.on('tool/call', (call) => {
    if (!call.callId.startsWith(prefix)) return
    started++
    last = `${call.name} started`
    changed()
  })
  const offResult = options.ctx.on('tools/result', (result) => {
    if (!result.callId.startsWith(prefix)) return
    finished++
    if (result.isError) failed++
    last = `${result.name} ${result.isError ? 'failed' : 'finished'}`
    changed()
  })
  sendNow()
  return {
    stop: () => {
      if (stopped) return
      stopped = true
      clearTimeout(trailing)
      clearTimeout(heartbeat)
      offCall()
      offResult()
    },
  }
}
