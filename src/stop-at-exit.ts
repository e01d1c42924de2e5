/**
 * Child processes this process stops when it exits (SPEC S9.1: no worker outlives its host;
 * S1.4: no imported MCP server is left orphaned). One `exit` listener for all of them: the
 * isolate and checker workers (`ptc/worker-channel.ts`, SIGKILL: they hold nothing to save) and
 * imported MCP servers (`mcp/mcp-connection.ts`, SIGTERM: a server may want to clean up, and the
 * SDK's own close escalates only on timers that do not keep Node alive).
 */
import type { ChildProcess } from 'node:child_process'

const live = new Map<ChildProcess, NodeJS.Signals>()
let installed = false

/**
 * Signals `child` with `signal` when this process exits, unless the returned function was called
 * first (call it once the child has ended). `ChildProcess.kill` never signals a process that has
 * already ended, so a reused pid is never hit.
 */
export function stopAtExit(child: ChildProcess, signal: NodeJS.Signals): () => void {
  live.set(child, signal)
  if (!installed) {
    installed = true
    process.on('exit', () => {
      for (const [child, stop] of live) {
        try {
          child.kill(stop)
        } catch {
          // Already gone.
        }
      }
    })
  }
  return () => void live.delete(child)
}
