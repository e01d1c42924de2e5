/**
 * One isolate worker process as its `IsolateSupervisor` sees it (SPEC S9.1), and the plumbing of
 * its channel: messages to it (the host's answers of a turn sent as one), its messages routed to
 * the runs they are about, and whether it keeps the host's event loop alive. Which worker gets
 * new runs, and when one is retired, replaced or killed, is the supervisor's.
 */
import type { WorkerChannel } from '../worker-channel.ts'
import { compactAnswers } from './answer-tuples.ts'
import type { IsolateRunResult } from './isolate-contract.ts'
import { catastropheEnding, type RunEnding, stepOverrunEnding, workerCrashEnding } from './run-endings.ts'
import type { RunLimits } from './run-limits.ts'
import type { ChildMessage, ParentMessage, WorkerAnswerMessage, WorkerAnswersMessage, WorkerRunMessage } from './worker-messages.ts'
import type { SupervisedRun } from './supervised-run.ts'
import type { TurnBatcher } from './turn-batcher.ts'

/**
 * One worker process and the runs it is serving. `wasReady`: it has been ready (before draining
 * or death); `waiting`: runs waiting for ready; `catastrophe`: the first one it reported;
 * `overrun`: the run whose held step ran past its timeout (`WorkerStepOverrunMessage`), by the CPU time or the wall clock;
 * `killReason`: why we killed it (absent: it died on its own); `answers`: sent once per turn.
 */
export interface SupervisedWorker {
  readonly channel: WorkerChannel<ParentMessage>
  state: 'starting' | 'ready' | 'draining' | 'dead'
  wasReady: boolean
  readonly ready: Promise<void>
  readonly runs: Map<string, SupervisedRun>
  waiting: number
  catastrophe: string | undefined
  overrun?: { runId: string; byCpu: boolean }
  killReason: string | undefined
  timers: NodeJS.Timeout[]
  readonly answers: TurnBatcher<WorkerAnswerMessage>
  /** Runs it has been given, and how many it serves before a replacement starts (`recycleAfterRuns`). */
  served: number
  recycleAt: number
  /** Whether a step may hold it now (`IsolateSupervisorOptions.mayBlock`), and whether one may be: answers let it, and it has not spoken since. */
  readonly mayBlock: () => boolean
  mayBeBlocked: boolean
  /** Messages heard from it so far (whether it has spoken since a moment). */
  heard: number
  /**
   * Until when (`performance.now()`, ms) a run that ended may have left code running in it
   * (`SupervisedRun.mayHaveLeftCode`): new runs then go elsewhere while another worker is ready and
   * free, so the worker has the quiet its stuck watch needs (stuck-isolate.ts), and a run sent to a
   * worker that is stuck does not share its cores with the operation. See {@link SUSPECT_MS}.
   */
  suspectUntil: number
}

/** How long (ms) after such a run its worker is kept from new runs: the stuck watch's first windows with no run (`STUCK_BUSY_POLLS` + 1 of 250 ms), and a margin. */
export const SUSPECT_MS = 1_500

/**
 * A cancel of the run whose step may be holding `worker` (step-permission.ts): the worker reads
 * the cancel only once the step returns, so the run is answered after `HELD_CANCEL_MS` at the
 * latest rather than `graceMs` (the host has stopped its calls, and refuses any the step made: it
 * had no effect after the cancel), and the worker is retired unless it speaks within `graceMs` (a
 * step still running then).
 * @returns false when no step may be holding it: the run waits `graceMs` for the worker to confirm.
 */
export function cancelWhileHeld(worker: SupervisedWorker, graceMs: number, retire: (reason: string) => void): boolean {
  if (!worker.mayBeBlocked) return false
  const heard = worker.heard
  const timer: NodeJS.Timeout = setTimeout(() => {
    worker.timers.splice(worker.timers.indexOf(timer), 1)
    if (worker.heard === heard) retire("a cancelled run's step still held it after graceMs")
  }, graceMs).unref()
  worker.timers.push(timer)
  return true
}

/** Routes one message of `worker` (not its `ready`) to the run it is about; `retire` stops new runs going to the worker. */
export function routeWorkerMessage(worker: SupervisedWorker, message: Exclude<ChildMessage, { type: 'ready' }>, retire: (reason: string) => void): void {
  switch (message.type) {
    case 'batch':
      for (const entry of message.messages) routeWorkerMessage(worker, entry, retire)
      break
    case 'dispatch': {
      const run = worker.runs.get(message.runId)
      if (run !== undefined) run.onDispatch(message)
      else worker.answers.push({ type: 'answer', runId: message.runId, pairingId: message.pairingId, outcome: { ok: false, message: 'the run ended' } })
      break
    }
    case 'abort-call':
      worker.runs.get(message.runId)?.onAbortCall(message.pairingId)
      break
    case 'result':
      worker.runs.get(message.runId)?.end(withParsedValue(message.result))
      // A memory kill can leave the isolate's thread running (observed with a 16 MB
      // `new Array(2 ** 31 - 1).fill(0)`, no catastrophe reported): the process could no longer exit.
      if (message.result.status === 'memory') retire('a run hit its memory limit')
      break
    case 'failure':
      worker.runs.get(message.runId)?.fail(Object.assign(new Error(message.error.message), { name: message.error.name }))
      break
    case 'catastrophe':
      worker.catastrophe ??= message.message
      retire(`isolated-vm reported a catastrophic error: ${message.message}`)
      break
    case 'step-overrun':
      worker.overrun ??= { runId: message.runId, byCpu: message.byCpu }
      retire('a step ran past its time limit in an operation V8 could not interrupt')
      break
    case 'retire':
      retire(typeof message.reason === 'string' ? message.reason : 'it asked to be replaced')
      break
  }
}

/**
 * How run `runId` of `worker` ends when the process has exited (`description`: how, as the channel
 * saw it): at its time limit when its held step overran, `memory` after a catastrophe, else a
 * crash (or the stop the host made, `killReason`).
 */
export function exitEnding(worker: SupervisedWorker, runId: string, limits: RunLimits, description: string): RunEnding {
  if (worker.overrun?.runId === runId) return stepOverrunEnding(worker.overrun.byCpu, limits)
  if (worker.catastrophe !== undefined) return catastropheEnding(worker.catastrophe, limits.memoryMb, true)
  return workerCrashEnding(worker.killReason !== undefined ? `was stopped (${worker.killReason})` : `crashed (${description})`)
}

/** `result` with its `valueJson` (the worker sends the value as text, issue 12) parsed into `value`. */
function withParsedValue(result: IsolateRunResult): IsolateRunResult {
  if (result.valueJson === undefined) return result
  const { valueJson, ...rest } = result
  try {
    if (typeof valueJson !== 'string') throw new TypeError('not text')
    // JSON.parse creates own properties only: a "__proto__" key stays plain data.
    return { ...rest, value: JSON.parse(valueJson) }
  } catch {
    return { ...rest, status: 'error', error: { name: 'Error', message: 'the isolate worker sent a return value that is not JSON' } }
  }
}

/**
 * Sends a message that starts a step of the script: a run's first, or the next after answers.
 * That step may hold a worker serving one run, when the group lets it (step-permission.ts).
 * @returns whether it was sent (`sendToWorker`)
 */
export function sendStepStart(worker: SupervisedWorker, message: WorkerRunMessage | WorkerAnswersMessage): boolean {
  const mayBlock = worker.runs.size === 1 && worker.mayBlock()
  if (mayBlock) message.mayBlock = true
  if (!sendToWorker(worker, message)) return false
  worker.mayBeBlocked ||= mayBlock
  return true
}

/** The answers of one turn as one message; one by one if that fails, so only an outcome that cannot be encoded fails. */
export function sendAnswerTurn(worker: SupervisedWorker, messages: WorkerAnswerMessage[]): void {
  const compact = compactAnswers(messages)
  if (compact !== undefined && sendStepStart(worker, compact)) return
  if (messages.length > 1 && sendToWorker(worker, { type: 'batch', messages })) return
  for (const { runId, pairingId, ...answer } of messages) {
    if (sendToWorker(worker, { runId, pairingId, ...answer }) || answer.outcome === undefined) continue
    sendToWorker(worker, { type: 'answer', runId, pairingId, rejection: 'the tool result could not be sent to the isolate (not JSON data)' })
  }
}

/** Sends one message (queued answers first); false when the channel is closed or the message cannot be encoded. */
export function sendToWorker(worker: SupervisedWorker, message: ParentMessage): boolean {
  if (message.type !== 'answer' && message.type !== 'batch' && message.type !== 'answers') worker.answers.flush()
  if (worker.state === 'dead') return false
  return worker.channel.send(message)
}

/** Ref the worker while runs are pending or waiting for it; unref it when idle. */
export function refWorker(worker: SupervisedWorker): void {
  if (worker.state !== 'dead') worker.channel.setRef(worker.runs.size > 0 || worker.waiting > 0)
}
