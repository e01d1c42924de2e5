/**
 * What a checker worker does (SPEC S9.1; issue 16: "the host only routes"): answers the host's
 * {@link CheckerPool} `prepare` messages one at a time, type-checking and compiling each script,
 * so that however long a script's types take, only this worker is busy and the host can stop it
 * at the run's deadline by killing it. Shared by both ways a checker starts: the module entry
 * (`checker-worker-entry.ts`: a child process or a worker thread) and the start-up snapshot
 * (`checker-snapshot-entry.ts`, TypeScript already loaded and warm). Messages: `checker-contract.ts`.
 */
import type { MessagePort } from 'node:worker_threads'
import { compileScript, setScriptTransform } from '../compile.ts'
import { openParentFrames } from '../parent-frames.ts'
import type { TypeChecker } from '../type-checker.ts'
import type { CheckerChildMessage, CheckerParentMessage, CheckerPrepareMessage } from './checker-contract.ts'
import { transformViaHost } from './host-transform.ts'
import { prepareScript } from './prepare-script.ts'

/** Declarations kept by hash, least recently used first; must match `KEPT_DECLARATIONS` of the pool. */
const MAX_DECLARATIONS = 8

/**
 * Serves the host on `port` (a worker thread's `parentPort`) or, when `port` is null, on this
 * child process's frames channel on fd 3 (`parent-frames.ts`; the process exits when the host
 * closes it). `typeChecker` resolves to the warm checker, loaded on first use. Resolves once
 * esbuild has started and `ready` has been sent.
 * @throws Error when there is neither a port nor the host's socket on fd 3 (not started by a
 *   `CheckerPool`).
 */
export async function serveChecker(port: MessagePort | null, typeChecker: () => Promise<TypeChecker>): Promise<void> {
  // The host went away: nothing is left to check for.
  const host = port === null ? openParentFrames<CheckerParentMessage, CheckerChildMessage>((message) => onMessage(message), () => process.exit(0)) : undefined
  const send = (message: CheckerChildMessage): void => {
    try {
      if (port !== null) port.postMessage(message)
      else host!.send(message)
    } catch {
      // The host is gone: a child process ends when its channel closes, a thread is terminated.
    }
  }
  const declarations = new Map<string, string>()
  /** One script at a time: the host sends the next only after this one is answered. */
  let queue: Promise<void> = Promise.resolve()

  const onPrepare = async (message: CheckerPrepareMessage): Promise<void> => {
    const text = message.declarations ?? declarations.get(message.declarationsHash)
    if (text === undefined) {
      send({ type: 'failure', id: message.id, error: { name: 'Error', message: `the checker has no declarations with hash ${message.declarationsHash}` } })
      return
    }
    // Most recently used last, exactly as the pool tracks it, so it knows which ones to resend.
    declarations.delete(message.declarationsHash)
    declarations.set(message.declarationsHash, text)
    if (declarations.size > MAX_DECLARATIONS) declarations.delete(declarations.keys().next().value!)
    try {
      send({ type: 'prepared', id: message.id, prepared: await prepareScript(typeChecker, message.request, text) })
    } catch (error) {
      const failure = error instanceof Error ? { name: error.name, message: error.message } : { name: 'Error', message: String(error) }
      send({ type: 'failure', id: message.id, error: failure })
    }
  }
  // A thread's esbuild would be left a zombie when the thread is terminated: the host transforms.
  const viaHost = port !== null ? transformViaHost(send) : undefined
  if (viaHost !== undefined) setScriptTransform(viaHost.transform)
  const onMessage = (message: CheckerParentMessage): void => {
    if (message.type === 'prepare') queue = queue.then(() => onPrepare(message))
    else viaHost?.answered(message)
  }
  port?.on('message', onMessage)
  // esbuild's service starts with the first compile: before announcing readiness.
  await compileScript('return 1')
  send({ type: 'ready' })
}
