/**
 * esbuild for checker threads (`isolation: 'inline'`, SPEC S9.1). A worker thread that calls
 * esbuild starts esbuild's service process as its own child; when the pool terminates the thread
 * (a check past its deadline, every checker at a host's dispose) the service ends, but the only
 * event loop that would have reaped it is gone, and it stays a zombie in the host's process
 * table, one more each time. So a checker thread hands each transform to the host's thread, whose
 * esbuild service lives as long as the process, and waits for the answer; a checker process keeps
 * its own esbuild (killed with it, reaped by init).
 */
import { esbuildTransform, type ScriptTransform } from '../compile.ts'
import type { CheckerTransformedMessage, CheckerTransformMessage } from './checker-contract.ts'

/**
 * The checker's side: a {@link ScriptTransform} that sends a `transform` message with `post` and
 * settles when `answered` is given the host's `transformed` message of the same id.
 */
export function transformViaHost(post: (message: CheckerTransformMessage) => void): { transform: ScriptTransform; answered: (message: CheckerTransformedMessage) => void } {
  const waiting = new Map<number, { resolve: (value: { code: string; map: string }) => void; reject: (error: Error) => void }>()
  let nextId = 1
  return {
    transform: (source) =>
      new Promise((resolve, reject) => {
        const id = nextId++
        waiting.set(id, { resolve, reject })
        post({ type: 'transform', id, source })
      }),
    answered(message) {
      const call = waiting.get(message.id)
      if (call === undefined) return
      waiting.delete(message.id)
      if (message.failure === undefined) call.resolve({ code: message.code ?? '', map: message.map ?? '' })
      // esbuild's failure as esbuild throws it: an Error carrying the messages (`compile.ts` maps them).
      else call.reject(Object.assign(new Error(message.failure.message), message.failure.errors !== undefined && { errors: message.failure.errors }))
    },
  }
}

/** The host's side: transforms `message.source` with this thread's esbuild and sends the answer. Never throws. */
export function answerTransform(message: CheckerTransformMessage, send: (answer: CheckerTransformedMessage) => void): void {
  esbuildTransform(message.source).then(
    ({ code, map }) => send({ type: 'transformed', id: message.id, code, map }),
    (error: unknown) => {
      const errors = (error as { errors?: unknown }).errors
      send({ type: 'transformed', id: message.id, failure: { message: error instanceof Error ? error.message : String(error), ...(Array.isArray(errors) && { errors: structuredClone(errors) }) } })
    },
  )
}
