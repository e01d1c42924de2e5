/**
 * Main module of a checker worker (SPEC S9.1; issue 16: "the host only routes"): type-checks and
 * compiles `run_code` scripts for the host's {@link CheckerPool}, one at a time, so that however
 * long a script's types take to check, only this worker is busy and the host can stop it at the
 * run's deadline by killing it. Runs as a child process (`isolation: 'process'`, IPC channel) or
 * as a worker thread (`isolation: 'inline'`, `parentPort`); the messages are in
 * `checker-contract.ts`.
 *
 * Start-up loads TypeScript, parses and binds the lib files with a first check and starts
 * esbuild, and only then reports `ready`: a run never pays for a cold checker. Exports nothing.
 */
import { enableCompileCache } from 'node:module'
import { parentPort } from 'node:worker_threads'
import { compileScript } from '../compile.ts'
import { TypeChecker } from '../type-checker.ts'
import type { CheckerChildMessage, CheckerParentMessage, CheckerPrepareMessage } from './checker-contract.ts'
import { prepareScript } from './prepare-script.ts'

// TypeScript is 9 MB of JavaScript: with the compile cache a warm start skips recompiling it.
try {
  enableCompileCache()
} catch {
  // Only a speed-up.
}

const port = parentPort
if (port === null && typeof process.send !== 'function') {
  throw new Error('checker-worker-entry.ts must be started by CheckerPool (a worker thread or a child process with an IPC channel)')
}

function send(message: CheckerChildMessage): void {
  try {
    if (port !== null) port.postMessage(message)
    else process.send!(message)
  } catch {
    // The host is gone: a child process ends on 'disconnect', a thread is terminated.
  }
}

const checker = new TypeChecker()
/** Declarations by hash, least recently used first; must match `KEPT_DECLARATIONS` of the pool. */
const declarations = new Map<string, string>()
const MAX_DECLARATIONS = 8
/** One script at a time: the host sends the next only after this one is answered. */
let queue: Promise<void> = Promise.resolve()

async function onPrepare(message: CheckerPrepareMessage): Promise<void> {
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
    send({ type: 'prepared', id: message.id, prepared: await prepareScript(checker, message.request, text) })
  } catch (error) {
    const failure = error instanceof Error ? { name: error.name, message: error.message } : { name: 'Error', message: String(error) }
    send({ type: 'failure', id: message.id, error: failure })
  }
}

const onMessage = (message: CheckerParentMessage): void => {
  if (message.type === 'prepare') queue = queue.then(() => onPrepare(message))
}
if (port !== null) {
  port.on('message', onMessage)
} else {
  process.on('message', onMessage)
  // The host went away: nothing is left to check for.
  process.on('disconnect', () => process.exit(0))
}

// Warm up before announcing readiness: the lib files are parsed and bound by the first check,
// esbuild's service starts with the first compile.
checker.check('return 1', '')
await compileScript('return 1')
send({ type: 'ready' })
