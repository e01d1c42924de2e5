/**
 * The timeout policy plugin (SPEC S2 `timeoutMs`, S3 `tools/execute`): a wrapper that gives the
 * body a signal aborted at the tool's deadline and ends the wait at that deadline even if the
 * body ignores the signal, producing a `timeout` result. The caller's own stop still works: the
 * registry re-fuses the caller's signal before the body (S6.3).
 */
import type { Context } from 'cordis'
import { ToolTimeoutError } from '../errors/ptc-error.ts'

export const name = 'timeout-policy'

/** Options: `defaultTimeoutMs` applies to tools that declare no `timeoutMs` (default: none). */
export interface Config {
  defaultTimeoutMs?: number
}

export function apply(ctx: Context, config: Config = {}) {
  ctx.on('tools/execute', (execution, next) => {
    const budget = execution.timeoutMs ?? config.defaultTimeoutMs
    if (budget === undefined) return next()
    const deadline = new AbortController()
    execution.signal = AbortSignal.any([execution.signal, deadline.signal])
    return new Promise((resolve, reject) => {
      const { callerSignal } = execution
      // The pipeline has already answered the caller's stop (S6.3); drop the deadline with it so
      // a body that ignores its signal does not keep the process alive for the whole budget.
      const stop = () => clearTimeout(timer)
      const timer = setTimeout(() => {
        callerSignal.removeEventListener('abort', stop)
        const error = new ToolTimeoutError(execution.name, budget)
        deadline.abort(error)
        reject(error)
      }, budget)
      callerSignal.addEventListener('abort', stop, { once: true })
      next().then(
        (value) => {
          stop()
          callerSignal.removeEventListener('abort', stop)
          resolve(value)
        },
        (error) => {
          stop()
          callerSignal.removeEventListener('abort', stop)
          reject(error)
        },
      )
    })
  })
}
