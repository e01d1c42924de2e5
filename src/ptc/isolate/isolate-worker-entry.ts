/**
 * Main module of the isolate worker process (SPEC S9.1–S9.3, S9.7): the child that
 * {@link IsolateSupervisor} forks so that whatever a script does to isolated-vm (a catastrophic
 * out-of-memory, an isolate thread that never terminates) can only take down this process, never
 * the host. It owns an {@link IsolatePool} and runs {@link runInIsolate} for every `run` message;
 * each tool call goes to the host as a `dispatch` message and comes back as an `answer`. The
 * messages are in `isolate-contract.ts`.
 *
 * Started as `node --no-node-snapshot isolate-worker-entry.ts '<IsolateWorkerOptions JSON>'` with
 * the host's socket on fd 3 (`worker-channel.ts`, `json-frames.ts`). Exports nothing. When the
 * host goes away the worker SIGKILLs itself: after a catastrophe `process.exit` may hang forever.
 */
import { flushCompileCache } from 'node:module'
import { openParentFrames } from '../parent-frames.ts'
import type { HeldStepTimeout, IsolateToolCall, IsolateToolOutcome } from './isolate-contract.ts'
import type { ChildMessage, IsolateWorkerOptions, ParentMessage, WorkerAbortCallMessage, WorkerAnswerMessage, WorkerDispatchMessage, WorkerRunMessage } from './worker-messages.ts'
import { tupleOutcome } from './answer-tuples.ts'
import { onIsolateCatastrophe } from './isolate-catastrophe.ts'
import { IsolatePool } from './isolate-pool.ts'
import { runInIsolate } from './isolate-run.ts'
import { failedOutcome } from './tool-call-queue.ts'
import { loadIsolateRuntimeSource } from './isolate-runtime-source.ts'
import { FULL_GC_EVERY_RUNS, HOUSEKEEPING_DELAY_MS, RunHousekeeping } from './run-housekeeping.ts'
import { StepWatchdog } from './step-watchdog.ts'
import { mayHaveLeftCode, StuckIsolateWatch } from './stuck-isolate.ts'
import { TurnBatcher } from './turn-batcher.ts'
import { takeWorkerGc } from './worker-gc.ts'

const options = JSON.parse(process.argv[2] ?? '{}') as Partial<IsolateWorkerOptions>
/**
 * When each run's clean-up happens: after a short wait unless runs come back to back; every
 * FULL_GC_EVERY_RUNS, with a full collection of this process's heap (issue 12). Taken before the
 * pool makes any isolate, so that no script's context has a `gc` (worker-gc.ts).
 */
const gc = takeWorkerGc()
const housekeeping = new RunHousekeeping(HOUSEKEEPING_DELAY_MS, undefined, gc && { collect: gc, everyRuns: FULL_GC_EVERY_RUNS })
const pool = new IsolatePool({ size: options.poolSize ?? 2, memoryMb: options.memoryMb ?? 128, afterRun: housekeeping.afterRun, prepareOffThread: false })
const runs = new Map<string, AbortController>()
/**
 * Whether the host's last run or answers message lets the step it starts run on this thread (`mayBlock`);
 * taken only with a stack as deep as isolated-vm's threads (`stepsHere`) and while one run is here.
 */
let mayBlock = false
const stepHere = options.stepsHere === true ? (): boolean => mayBlock && runs.size === 1 : undefined
/** Ends this process when a step on the main thread grows it past its run's bound, overruns its timeout, or outlives the host (step-watchdog.ts). */
const watchdog = stepHere === undefined ? undefined : new StepWatchdog(3)
/** Runs started so far (the stuck watch's windows with no run). */
let started = 0
/** Asks the host to replace this worker when an ended run's isolate thread goes on running (stuck-isolate.ts). */
const stuck = new StuckIsolateWatch({ get runs() { return runs.size }, get started() { return started } }, (reason) => send({ type: 'retire', reason }))
/** The calls of each run waiting for the host's answer, by run id, then pairing id. */
const calls = new Map<string, Map<string, IsolateToolCall>>()

/**
 * The channel to the host. A send after it closed is dropped: the host is gone, and the closing
 * ends this process.
 */
const host = openParentFrames<ParentMessage, ChildMessage>(onMessage, () => {
  // After a catastrophe an isolate thread may never finish, and then a normal exit hangs.
  process.kill(process.pid, 'SIGKILL')
})

/**
 * Calls and call aborts go to the host together, one write for a burst: the calls of one
 * crossing out of the isolate arrive here in one callback, so they are sent a microtask later.
 */
const outbox = new TurnBatcher<WorkerDispatchMessage | WorkerAbortCallMessage>((messages) => host.send(messages.length === 1 ? messages[0]! : { type: 'batch', messages }))

/**
 * Messages written while a step runs on this thread (`stepHere`), sent once it has returned: the
 * host takes any message as a sign that no step holds this worker any more (step-permission.ts),
 * and a step making 128 calls would otherwise send the first of them while it still runs.
 */
let heldMessages: ChildMessage[] | undefined

function onStepHere(runId: string, running: boolean, withdrawn = false, timeout?: HeldStepTimeout): void {
  watchdog?.watch(running, timeout, runId)
  if (running) {
    outbox.flush() // Calls queued before the step leave before it holds what it sends.
    heldMessages ??= []
    return
  }
  let messages = heldMessages ?? []
  heldMessages = undefined
  // A limit ended the run in the step: its calls would start after the run's end, so they are not
  // made (nor told to stop: the host never saw them).
  if (withdrawn) messages = messages.filter((message) => message.type !== 'dispatch' || !calls.get(message.runId)?.delete(message.pairingId))
  // A sequential step's one call goes as it is; more go as `send` sends them (calls in batches).
  if (messages.length === 1) return void host.send(messages[0]!)
  for (const message of messages) send(message)
  outbox.flush()
}

/** Sends `message`; anything but a call goes at once, after the calls queued before it. Held, in order, while a step runs here. */
function send(message: ChildMessage): void {
  if (heldMessages !== undefined) return void heldMessages.push(message)
  if (message.type === 'dispatch' || message.type === 'abort-call') {
    outbox.push(message, true)
    return
  }
  outbox.flush()
  host.send(message)
}

onIsolateCatastrophe((message) => send({ type: 'catastrophe', message }))

process.on('unhandledRejection', (reason) => {
  // Nothing here should reject unhandled; if something does, report it and keep serving.
  process.stderr.write(`ptc isolate worker: unhandled rejection: ${reason instanceof Error ? reason.stack : String(reason)}\n`)
})

function onMessage(message: ParentMessage): void {
  switch (message.type) {
    case 'run':
      housekeeping.runArrived()
      mayBlock = message.mayBlock === true
      startRun(message)
      break
    case 'cancel':
      runs.get(message.runId)?.abort()
      break
    case 'answer':
      mayBlock = false
      answer(message.runId, message.pairingId, answerOutcome(message))
      break
    case 'batch':
      mayBlock = false
      for (const entry of message.messages) answer(entry.runId, entry.pairingId, answerOutcome(entry))
      break
    case 'answers':
      mayBlock = message.mayBlock === true
      for (const [runId, pairingId, kind, text] of message.answers) answer(runId, pairingId, tupleOutcome(kind, text))
      break
  }
}

function startRun(message: WorkerRunMessage): void {
  const { runId } = message
  started++
  watchdog?.runStarts(message.limits.memoryMb)
  const controller = new AbortController()
  runs.set(runId, controller)
  const pending = new Map<string, IsolateToolCall>()
  calls.set(runId, pending)
  // A call's signal aborts only when its run ends (ToolCallQueue.close), just before the run's
  // result: the calls still waiting then are ended here, with no abort listener on every call.
  // Answered through `call.answer` when the host's answer comes: no promise a call (issue 12).
  const dispatch = (call: IsolateToolCall): void => {
    pending.set(call.pairingId, call)
    send({ type: 'dispatch', runId, pairingId: call.pairingId, name: call.name, argsJson: call.argsJson })
  }
  const ended = (): void => {
    runs.delete(runId)
    calls.delete(runId)
    for (const pairingId of pending.keys()) send({ type: 'abort-call', runId, pairingId })
    pending.clear()
  }
  // The value stays JSON text: it crosses as raw bytes and the host parses it once (issue 12).
  runInIsolate({ js: message.js, toolNames: message.toolNames, limits: message.limits, checkMs: message.checkMs, signal: controller.signal, dispatch, valueAsJson: true, ...(stepHere !== undefined && { stepHere, onStepHere: (running, withdrawn, timeout) => onStepHere(runId, running, withdrawn, timeout) }) }, pool).then(
    (result) => {
      ended()
      send({ type: 'result', runId, result })
      if (mayHaveLeftCode(result)) stuck.watch(message.limits.memoryMb)
    },
    (error: unknown) => {
      ended()
      const failure = error instanceof Error ? { name: error.name, message: error.message } : { name: 'Error', message: String(error) }
      send({ type: 'failure', runId, error: failure })
    },
  )
}

function answer(runId: string, pairingId: string, outcome: IsolateToolOutcome): void {
  const pending = calls.get(runId)
  const call = pending?.get(pairingId)
  if (call === undefined) return // The run already ended: the runner discards late outcomes anyway.
  pending!.delete(pairingId)
  call.answer(outcome)
}

/** What the runner makes of a host's answer: its outcome, or a rejection as the tool's failure, as in-process. */
function answerOutcome(message: WorkerAnswerMessage): IsolateToolOutcome {
  return message.outcome ?? failedOutcome(new Error(message.rejection ?? 'the tool failed'))
}

// Build the runtime bundle before announcing readiness, so the first run does not pay for it.
await loadIsolateRuntimeSource()
send({ type: 'ready' })
// Node writes its compile cache (NODE_COMPILE_CACHE, set by the supervisor) only at a normal
// exit, and this process always ends SIGKILLed: without a flush every start strips and compiles
// the worker's TypeScript modules again (issue 12: about 0.1-0.2 s of the worker's start). A
// no-op when the cache is off or already holds every module.
try {
  flushCompileCache()
} catch {
  // Only a speed-up.
}
