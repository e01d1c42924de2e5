/**
 * The isolate worker process's channel (SPEC S9.1): the options it is started with and every
 * message between it (`isolate-worker-entry.ts`) and its `IsolateSupervisor`. A run's request and
 * result are in `isolate-contract.ts`. Types only.
 *
 * Messages travel as JSON frames over a socket (`../json-frames.ts`: long strings cross beside
 * the JSON as raw bytes, not JSON-escaped a second time); they hold only strings, numbers,
 * booleans and plain JSON data, and tool arguments and results stay JSON text inside them (SPEC S9.4).
 * One worker serves many concurrent runs (each isolate has its own thread); `runId` (chosen by
 * the host) tells them apart, `pairingId` (chosen by the isolate runner) tells a run's calls apart.
 */
import type { AnswerTuple } from './answer-tuples.ts'
import type { IsolateRunResult, IsolateToolOutcome } from './isolate-contract.ts'
import type { RunLimits } from './run-limits.ts'

/** argv[2] of the worker: JSON of these options for its `IsolatePool`. */
export interface IsolateWorkerOptions {
  /** Isolates the worker keeps prepared (see `IsolatePoolOptions.size`). */
  poolSize: number
  /** Heap limit in MB of the pooled isolates; runs with another `memoryMb` bypass the pool. */
  memoryMb: number
  /**
   * Whether the worker may run a run's first and sequential steps on its main thread when the
   * host lets it ({@link WorkerRunMessage.mayBlock}, {@link WorkerAnswersMessage.mayBlock}): set when the worker's main thread was given a stack
   * as deep as isolated-vm's own threads (`worker-stack.ts`), so a script's recursion reaches as
   * far in every step. Default false.
   */
  stepsHere?: boolean
}

/** Host → worker: start a run. `limits` are already resolved (and validated) by the host. */
export interface WorkerRunMessage {
  type: 'run'
  runId: string
  js: string
  toolNames: string[]
  limits: RunLimits
  checkMs: number
  /** The run's first step may run on the worker's main thread, as after {@link WorkerAnswersMessage.mayBlock}. */
  mayBlock?: true
}

/** Host → worker: the caller aborted `request.signal`; the worker ends the run as `cancelled`. */
export interface WorkerCancelMessage {
  type: 'cancel'
  runId: string
}

/**
 * Host → worker: how the host's `dispatch` settled for one call. `outcome` when it resolved,
 * `rejection` (the error's message) when it rejected; the worker's runner turns either into the
 * script's value or `ToolCallError` exactly as it does in-process.
 */
export interface WorkerAnswerMessage {
  type: 'answer'
  runId: string
  pairingId: string
  outcome?: IsolateToolOutcome
  rejection?: string
}

/** Host → worker: the answers of one event-loop turn in one message, handled in order. */
export interface WorkerAnswerBatchMessage {
  type: 'batch'
  messages: WorkerAnswerMessage[]
}

/** Host → worker: the answers of one turn as tuples (`answer-tuples.ts`), handled in order. */
export interface WorkerAnswersMessage {
  type: 'answers'
  answers: AnswerTuple[]
  /**
   * The host lets the step these answers start run on the worker's main thread, holding the
   * worker until it ends (issue 12): another worker stands idle for new runs
   * (`step-permission.ts`). Absent: every step runs on the isolate's own thread.
   */
  mayBlock?: true
}

/** Every message the host sends. */
export type ParentMessage = WorkerRunMessage | WorkerCancelMessage | WorkerAnswerMessage | WorkerAnswerBatchMessage | WorkerAnswersMessage

/** Worker → host: the worker has loaded isolated-vm and built the runtime; it serves runs. */
export interface WorkerReadyMessage {
  type: 'ready'
}

/** Worker → host: the script called `tools[name](args)`; the host runs its `dispatch`. */
export interface WorkerDispatchMessage {
  type: 'dispatch'
  runId: string
  pairingId: string
  name: string
  /** The arguments as JSON text, already bounded by `maxCrossingBytes` inside the worker. */
  argsJson: string
}

/** Worker → host: the run ended while this call was in flight; abort its host-side signal. */
export interface WorkerAbortCallMessage {
  type: 'abort-call'
  runId: string
  pairingId: string
}

/** Worker → host: the run's result (the value `runInIsolate` resolved to). */
export interface WorkerResultMessage {
  type: 'result'
  runId: string
  result: IsolateRunResult
}

/** Worker → host: `runInIsolate` threw (infrastructure: no isolate could be created). */
export interface WorkerFailureMessage {
  type: 'failure'
  runId: string
  error: { name: string; message: string }
}

/**
 * Worker → host: isolated-vm reported a catastrophic error (`onIsolateCatastrophe`). The worker
 * may no longer be able to exit: the host stops sending it runs and SIGKILLs it once drained.
 */
export interface WorkerCatastropheMessage {
  type: 'catastrophe'
  message: string
}

/**
 * Worker → host, from its step watchdog (`step-watchdog.ts`): a step held on its main thread ran
 * past its timeout (`byCpu`: the run's CPU time left, else its wall clock) in an operation V8 could
 * not interrupt; the worker ends itself right after, and the host ends that run `timeout` (any
 * other run it held fails as in a crash).
 */
export interface WorkerStepOverrunMessage {
  type: 'step-overrun'
  /** The run whose step it was (`WorkerRunMessage.runId`). */
  runId: string
  byCpu: boolean
}

/**
 * Worker → host: replace this worker (`reason`: why, for the host's record). Sent when a run that
 * ended left its isolate's thread running an operation V8 could not interrupt (`stuck-isolate.ts`):
 * the host sends the worker no more runs and ends it once its runs are done.
 */
export interface WorkerRetireMessage {
  type: 'retire'
  reason: string
}

/**
 * Worker → host: the calls and call aborts of one event-loop turn in one message, handled in
 * order. Every other message is sent at once, after the batch pending before it.
 */
export interface WorkerCallBatchMessage {
  type: 'batch'
  messages: (WorkerDispatchMessage | WorkerAbortCallMessage)[]
}

/** Every message the worker sends. */
export type ChildMessage = WorkerReadyMessage | WorkerDispatchMessage | WorkerAbortCallMessage | WorkerResultMessage | WorkerFailureMessage | WorkerCatastropheMessage | WorkerStepOverrunMessage | WorkerRetireMessage | WorkerCallBatchMessage
