/**
 * The compact form of the host's answers to the isolate worker (issue 12): a turn's answers
 * cross IPC as `[runId, pairingId, kind, text]` tuples instead of nested `answer` objects, which
 * the channel's serializer writes key by key (a tuple serializes and parses in about a third of
 * the time: 1 µs against 2.5–3.2 µs an answer). Only answers of the plain shapes have a tuple;
 * a turn with any other answer is sent as before, so what the worker's runner judges is unchanged.
 */
import type { IsolateToolOutcome } from './isolate-contract.ts'
import { failedOutcome } from './tool-call-queue.ts'
import type { WorkerAnswerMessage, WorkerAnswersMessage } from './worker-messages.ts'

/** `kind` 1: resolved `{ ok: true }`, `text` the value's JSON; 0: resolved `{ ok: false }`, `text` the message; 2: rejected, `text` the rejection. */
export type AnswerTuple = [runId: string, pairingId: string, kind: 0 | 1 | 2, text: string]

/** The turn's answers as one `answers` message, in order; `undefined` when one of them has no tuple form. */
export function compactAnswers(messages: readonly WorkerAnswerMessage[]): WorkerAnswersMessage | undefined {
  const answers = new Array<AnswerTuple>(messages.length)
  for (let index = 0; index < messages.length; index++) {
    const tuple = tupleOf(messages[index]!)
    if (tuple === undefined) return undefined
    answers[index] = tuple
  }
  return { type: 'answers', answers }
}

function tupleOf({ runId, pairingId, outcome, rejection }: WorkerAnswerMessage): AnswerTuple | undefined {
  if (outcome === undefined) return typeof rejection === 'string' ? [runId, pairingId, 2, rejection] : undefined
  const { ok, valueJson, message } = outcome as { ok?: unknown; valueJson?: unknown; message?: unknown }
  if (ok === true && typeof valueJson === 'string') return [runId, pairingId, 1, valueJson]
  if (ok === false && typeof message === 'string') return [runId, pairingId, 0, message]
  return undefined
}

/** The outcome a tuple's `kind` and `text` stand for, as the worker's runner takes it (a rejection as the tool's failure, as in-process). */
export function tupleOutcome(kind: AnswerTuple[2], text: string): IsolateToolOutcome {
  if (kind === 1) return { ok: true, valueJson: text }
  return kind === 0 ? { ok: false, message: text } : failedOutcome(new Error(text))
}
