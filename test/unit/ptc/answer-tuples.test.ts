/**
 * The compact form of a turn's answers from the host to the isolate worker (issue 12): every
 * plain answer survives the round trip as the outcome the runner takes, and a turn holding any other answer has no
 * compact form, so it is sent as before and the worker's runner judges it as it always did.
 */
import { describe, expect, it } from 'vitest'
import { compactAnswers, tupleOutcome } from '../../../src/ptc/isolate/answer-tuples.ts'
import type { WorkerAnswerMessage } from '../../../src/ptc/isolate/worker-messages.ts'

const success: WorkerAnswerMessage = { type: 'answer', runId: 'r1', pairingId: 'r1:1', outcome: { ok: true, valueJson: '{"i":1}' } }
const failure: WorkerAnswerMessage = { type: 'answer', runId: 'r1', pairingId: 'r1:2', outcome: { ok: false, message: 'Tool "noop" failed: boom' } }
const rejection: WorkerAnswerMessage = { type: 'answer', runId: 'r2', pairingId: 'r2:7', rejection: 'dispatch threw' }

describe('answer tuples (host → isolate worker)', () => {
  it('S9.2/S9.3 a value, a failure and a rejection come back as the same outcomes, in order (a rejection as the tool\'s failure)', () => {
    const compact = compactAnswers([success, failure, rejection])
    expect(compact).toEqual({
      type: 'answers',
      answers: [
        ['r1', 'r1:1', 1, '{"i":1}'],
        ['r1', 'r1:2', 0, 'Tool "noop" failed: boom'],
        ['r2', 'r2:7', 2, 'dispatch threw'],
      ],
    })
    expect(compact!.answers.map(([, , kind, text]) => tupleOutcome(kind, text))).toEqual([success.outcome, failure.outcome, { ok: false, message: 'the tool failed: dispatch threw' }])
    // A rejection with no message is named by its error's name, as in-process.
    expect(tupleOutcome(2, '')).toEqual({ ok: false, message: 'the tool failed: Error' })
  })

  it('S9.3 a turn with an answer of any other shape has no compact form (sent as before, judged by the runner)', () => {
    const odd = [
      { type: 'answer', runId: 'r1', pairingId: 'r1:3', outcome: { ok: true, valueJson: 5 } },
      { type: 'answer', runId: 'r1', pairingId: 'r1:4', outcome: { ok: false } },
      { type: 'answer', runId: 'r1', pairingId: 'r1:5', outcome: { ok: 'yes', valueJson: '1' } },
      { type: 'answer', runId: 'r1', pairingId: 'r1:6' },
    ] as unknown as WorkerAnswerMessage[]
    for (const answer of odd) expect(compactAnswers([success, answer])).toBeUndefined()
  })
})
