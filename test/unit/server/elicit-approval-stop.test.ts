/**
 * An MCP approval prompt of a stopped call (SPEC S6.3, S8.2): the pipeline's stop (the caller's or
 * the host's) withdraws the elicitation, and the responder ends it as the terminal's does, with
 * the not-answered ApprovalNotObtainedError (nobody refused the call), not 'denied'.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { describe, expect, it } from 'vitest'
import { ApprovalNotObtainedError } from '../../../src/errors/ptc-error.ts'
import { Execution, NEVER_ABORTED } from '../../../src/pipeline/execution.ts'
import { elicitApproval } from '../../../src/server/elicit-approval.ts'

/** A client that declared elicitation and never answers: its prompt ends only when withdrawn. */
function silentServer() {
  let asked!: () => void
  const shown = new Promise<void>((resolve) => (asked = resolve))
  const server = {
    getClientCapabilities: () => ({ elicitation: {} }),
    elicitInput: (_params: unknown, options: { signal?: AbortSignal }) =>
      new Promise((_resolve, reject) => {
        asked()
        options.signal?.addEventListener('abort', () => reject(new Error('withdrawn')), { once: true })
      }),
  } as unknown as Server
  return { server, shown }
}

const execution = (callerSignal: AbortSignal, stopSignal: AbortSignal) =>
  new Execution({ callId: 'c1', name: 'write_file', args: { path: '/x' }, agent: 'a1', parentToken: undefined, callerSignal, stopSignal, timeoutMs: undefined })

async function outcomeOnStop(stopSignalFor: (stop: AbortSignal) => { caller: AbortSignal; stop: AbortSignal }): Promise<unknown> {
  const { server, shown } = silentServer()
  const responder = elicitApproval({ server, agent: 'a1', timeoutMs: 60_000 })
  const stop = new AbortController()
  const signals = stopSignalFor(stop.signal)
  const answer = Promise.resolve(responder({ execution: execution(signals.caller, signals.stop), reason: 'outside' }, () => 'unavailable'))
  await shown
  stop.abort()
  return Promise.race([answer.then((outcome) => outcome, (error: unknown) => error), new Promise((resolve) => setTimeout(() => resolve('still waiting'), 1_000))])
}

describe('an MCP approval prompt of a stopped call (S6.3, S8.2)', () => {
  it("S8.2 S6.3 the host's stop withdraws the prompt: not answered, not refused", async () => {
    const error = await outcomeOnStop((stop) => ({ caller: NEVER_ABORTED, stop }))
    expect(ApprovalNotObtainedError.isInstance(error)).toBe(true)
    expect((error as Error).message).toBe('the call was stopped before anyone answered the approval prompt')
  })

  it("S8.2 S6.3 the caller's stop ends it the same way, as the terminal's prompt does", async () => {
    const error = await outcomeOnStop((stop) => ({ caller: stop, stop }))
    expect(ApprovalNotObtainedError.isInstance(error)).toBe(true)
    expect((error as Error).message).toBe('the call was stopped before anyone answered the approval prompt')
  })

  it('S8.2 a call already stopped is not asked at all: not answered, and no prompt is sent', async () => {
    let asked = 0
    const server = { getClientCapabilities: () => ({ elicitation: {} }), elicitInput: async () => (asked++, { action: 'accept', content: { allow: true } }) } as unknown as Server
    const stopped = AbortSignal.abort()
    const outcome = await Promise.resolve(elicitApproval({ server, agent: 'a1', timeoutMs: 60_000 })({ execution: execution(stopped, stopped), reason: 'outside' }, () => 'unavailable')).then((value) => value, (error: unknown) => error)
    expect(ApprovalNotObtainedError.isInstance(outcome)).toBe(true)
    expect((outcome as Error).message).toBe('the call was stopped before anyone answered the approval prompt')
    expect(asked).toBe(0)
  })
})
