/**
 * The tool calls a host has opened and not yet finished (SPEC S3, S11.1): every `tool/call` is
 * answered by one `tools/result` with the same `callId`. `host.dispose()` waits for them, up to a
 * bound, before it stops the plugins, so a call that was cancelled (Ctrl-C during `ptc run`: the
 * run's calls are aborted and end a moment later) still gets its `tool/result` in the journal
 * instead of being cut off with only its `tool/call`.
 */
import type { Context } from 'cordis'
import { bindListenersWithoutProxyTraps } from '../pipeline/cordis-adapter.ts'

/** How long `dispose()` waits for open calls to finish, in ms, before it stops the host anyway. */
export const DISPOSE_DRAIN_MS = 2_000

/**
 * Tracks open calls on `ctx` (only those of `agent` when given: an MCP session's, its runs' calls
 * from code included); `drained(limitMs)` resolves once none is open, or after `limitMs` ms.
 * Never rejects. The listeners live as long as `ctx`.
 */
export function trackOpenCalls(ctx: Context, agent?: string): { drained: (limitMs?: number) => Promise<void> } {
  const open = new Set<string>()
  let wake: (() => void) | undefined
  // Speed (issue 12): these two listeners run on every call; registered before the registry
  // plugin, they would keep cordis' per-call proxy traps (a twentieth of the host's CPU a call).
  bindListenersWithoutProxyTraps(ctx)
  ctx.on('tool/call', (call) => {
    if (agent === undefined || call.agent === agent) open.add(call.callId)
  })
  ctx.on('tools/result', (result) => {
    if (!open.delete(result.callId)) return
    if (open.size === 0) wake?.()
  })
  return {
    drained(limitMs = DISPOSE_DRAIN_MS) {
      if (open.size === 0) return Promise.resolve()
      return new Promise<void>((resolve) => {
        const timer = setTimeout(done, limitMs)
        function done(): void {
          clearTimeout(timer)
          wake = undefined
          resolve()
        }
        wake = done
      })
    },
  }
}
