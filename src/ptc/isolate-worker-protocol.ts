/**
 * The messages between {@link IsolateSupervisor} (parent, `src/ptc/isolate-supervisor.ts`) and the
 * isolate worker process (child, `src/ptc/isolate-worker-entry.ts`). Types only: both sides import
 * it with `import type`. Messages travel over Node's IPC channel with `serialization: 'advanced'`
 * (structured clone: strings are copied, not JSON-escaped a second time); they hold only strings,
 * numbers, booleans and plain JSON data, and tool arguments and results stay JSON text inside
 * them (SPEC S9.4).
 *
 * One child serves many concurrent runs (each isolate has its own thread); `runId` (chosen by the
 * parent) tells them apart, `pairingId` (chosen by the isolate runner) tells a run's calls apart.
 */
import type { IsolateRunResult, IsolateToolOutcome } from './isolate-runner.ts'
import type { RunLimits } from './run-limits.ts'

/** argv[2] of the child: JSON of these options for its `IsolatePool`. */
export interface IsolateWorkerOptions {
  /** Isolates the child keeps prepared (see `IsolatePoolOptions.size`). */
  poolSize: number
  /** Heap limit in MB of the pooled isolates; runs with another `memoryMb` bypass the pool. */
  memoryMb: number
}

/** Parent → child: start a run. `limits` are already resolved (and validated) by the parent. */
export interface WorkerRunMessage {
  type: 'run'
  runId: string
  js: string
  toolNames: string[]
  limits: RunLimits
}

/** Parent → child: the caller aborted `request.signal`; the child ends the run as `cancelled`. */
export interface WorkerCancelMessage {
  type: 'cancel'
  runId: string
}

/**
 * Parent → child: how the host's `dispatch` settled for one call. `outcome` when it resolved,
 * `rejection` (the error's message) when it rejected; the child's runner turns either into the
 * script's value or `ToolCallError` exactly as it does in-process.
 */
export interface WorkerAnswerMessage {
  type: 'answer'
  runId: string
  pairingId: string
  outcome?: IsolateToolOutcome
  rejection?: string
}

/**
 * Parent → child: the answers of one event-loop turn in one message (one write and one parse
 * for a burst of parallel calls instead of one per call), handled in order.
 */
export interface WorkerAnswerBatchMessage {
  type: 'batch'
  messages: WorkerAnswerMessage[]
}

/** Every message the parent sends. */
export type ParentMessage = WorkerRunMessage | WorkerCancelMessage | WorkerAnswerMessage | WorkerAnswerBatchMessage

/** Child → parent: the child has loaded isolated-vm and built the runtime; it serves runs. */
export interface WorkerReadyMessage {
  type: 'ready'
}

/** Child → parent: the script called `tools[name](args)`; the parent runs the host `dispatch`. */
export interface WorkerDispatchMessage {
  type: 'dispatch'
  runId: string
  pairingId: string
  name: string
  /** The arguments as JSON text, already bounded by `maxCrossingBytes` inside the child. */
  argsJson: string
}

/** Child → parent: the run ended while this call was in flight; abort its host-side signal. */
export interface WorkerAbortCallMessage {
  type: 'abort-call'
  runId: string
  pairingId: string
}

/** Child → parent: the run's result (the value `runInIsolate` resolved to). */
export interface WorkerResultMessage {
  type: 'result'
  runId: string
  result: IsolateRunResult
}

/** Child → parent: `runInIsolate` threw (infrastructure: no isolate could be created). */
export interface WorkerFailureMessage {
  type: 'failure'
  runId: string
  error: { name: string; message: string }
}

/**
 * Child → parent: isolated-vm reported a catastrophic error (`onIsolateCatastrophe`). The child
 * may no longer be able to exit: the parent stops sending it runs and SIGKILLs it once drained.
 */
export interface WorkerCatastropheMessage {
  type: 'catastrophe'
  message: string
}

/**
 * Child → parent: the calls and call aborts of one event-loop turn in one message, handled in
 * order. Every other message is sent at once, after the batch pending before it.
 */
export interface WorkerCallBatchMessage {
  type: 'batch'
  messages: (WorkerDispatchMessage | WorkerAbortCallMessage)[]
}

/** Every message the child sends. */
export type ChildMessage = WorkerReadyMessage | WorkerDispatchMessage | WorkerAbortCallMessage | WorkerResultMessage | WorkerFailureMessage | WorkerCatastropheMessage | WorkerCallBatchMessage
