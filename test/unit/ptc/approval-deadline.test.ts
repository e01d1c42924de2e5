/**
 * A run whose deadline passes while one of its calls waits for approval (SPEC S5.1, S8.1, S9.1):
 * the timeout says the time went to an approval prompt nobody answered, names the call, and
 * advises answering sooner or a longer timeoutMs, not fewer calls. In both isolation modes.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Context } from 'cordis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import * as Journal from '../../../src/journal/journal.ts'
import { Approval, type ApprovalResponder } from '../../../src/policy/approval.ts'
import { approvalDeadlineEnding, cpuEnding, endedAtWallClock, withUnansweredApprovals } from '../../../src/ptc/isolate/run-endings.ts'
import { Ptc } from '../../../src/ptc/ptc-service.ts'
import * as serveTools from '../../fixtures/serve-tools.ts'
import { createRoot } from '../../helpers/registry.ts'

// The two modes run side by side (each its own root, responder and journal; nearly all of their
// time is spent waiting for deadlines); the tests of one mode run one after another, as they share its responder.
describe.each(['process', 'inline'] as const)('a deadline during an approval, isolation %s', { concurrent: true }, (isolation) => {
  let root: Context
  let dispose: () => unknown
  /** How the responder answers the next request; by default it never does (until the call is withdrawn). */
  let respond: ApprovalResponder
  const neverAnswered: ApprovalResponder = ({ execution }) =>
    new Promise((_resolve, reject) => execution.callerSignal.addEventListener('abort', () => reject(new Error('withdrawn')), { once: true }))

  let dir: string
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ptc-approval-deadline-'))
    root = await createRoot()
    await root.plugin(Approval)
    await root.plugin(Journal, { file: join(dir, 'journal.jsonl') })
    const fiber = root.plugin(Ptc, { isolation, poolSize: 1, checkers: 1 })
    await fiber
    dispose = () => fiber.dispose()
    await root.plugin(serveTools)
    root.approval.respond((request, next) => respond(request, next))
  }, 120_000)
  afterAll(async () => {
    await dispose()
    rmSync(dir, { recursive: true, force: true })
  })

  const run = (code: string, timeoutMs: number) => root.ptc.run(code, { typecheck: false, timeoutMs, agent: 'approver' })

  describe('one test at a time', { concurrent: false }, () => {
    it('S5.1 S8.1 S9.1 the timeout names the call awaiting approval, says nobody answered in time, and advises answering sooner or raising timeoutMs', async () => {
      respond = neverAnswered
      const result = await run('await tools.guarded({}); return 1', 1_500)
      expect(result).toMatchObject({ status: 'timeout', toolCalls: 1, error: { name: 'TimeoutError' } })
      const message = result.error!.message
      expect(message).toMatch(/^The script did not finish within the wall-clock limit of 1500 ms \(wallClockMs\): for \d+ ms of it the script waited for approval of a tool call \(1 call: guarded \{\}\), and nobody answered the approval prompt in time, so the call was not made\. /)
      expect(message).toMatch(/Answer the approval prompt sooner, or raise timeoutMs/)
      expect(message).not.toMatch(/fewer|still running/)
    }, 60_000)

    it('S8.2 the call cut off by the deadline while it awaited approval is journaled as not answered (unavailable, stopped), then cancelled, never as refused', async () => {
      // As the terminal and MCP prompts did: the call's stop ends the prompt with 'denied'.
      let callId: string | undefined
      respond = ({ execution }) => new Promise((resolve) => ((callId = execution.callId), execution.callerSignal.addEventListener('abort', () => resolve('denied'), { once: true })))
      const result = await run('await tools.guarded({}); return 1', 1_000)
      expect(result).toMatchObject({ status: 'timeout' })
      const records = readFileSync(join(dir, 'journal.jsonl'), 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>)
      const mine = records.filter((record) => record.callId === callId)
      expect(mine.map((record) => [record.type, record.outcome ?? (record.error as { kind?: string } | undefined)?.kind ?? '-', record.stopped ?? '-'])).toEqual([
        ['tool/call', '-', '-'],
        ['tool/approval', 'unavailable', true],
        ['tool/result', 'cancelled', '-'],
      ])
    }, 60_000)

    it('S8.1 an approval answered in time is not blamed: the deadline accounts for the time as before', async () => {
      respond = () => new Promise((resolve) => setTimeout(() => resolve('allowed-once'), 50))
      const result = await run('await tools.guarded({}); await new Promise(() => {})', 1_000)
      expect(result).toMatchObject({ status: 'timeout', toolCalls: 1 })
      expect(result.error?.message).toMatch(/most of it went to waiting on nothing/)
      expect(result.error?.message).not.toMatch(/approval/)
    }, 60_000)

    it('S5.1 S8.1 an approval asked just before the deadline, after the time went to other calls, keeps the account of the tool calls (the call awaiting approval not among those still running) and adds that it was not made', async () => {
      respond = neverAnswered
      const result = await run('await tools.sleep({ ms: 1_200 }); await tools.guarded({})', 1_500)
      expect(result).toMatchObject({ status: 'timeout' })
      expect(result.error?.message).toMatch(/most of it went to waiting on tool calls/)
      expect(result.error?.message).toMatch(/\. At the deadline a tool call was still awaiting approval \(1 call: guarded \{\}\): nobody answered the approval prompt, so the call was not made\.$/)
      // The call awaiting approval is not also one "still running" that "may have taken effect".
      expect(result.error?.message).not.toMatch(/still running|may or may not have taken effect/)
      expect(result).not.toHaveProperty('deadline')
    }, 60_000)

    it.each([
      // A busy loop, then the call: the deadline comes during the approval's wait.
      { code: "const t = Date.now(); while (Date.now() - t < 1_300) {} return (await tools.guarded({})) !== undefined", deadlineMs: 2_000, case: 'a busy loop before a call that then awaits approval: the busy loop is blamed' },
      // The await lets both calls leave (a step's calls are sent when the script pauses); `guarded` is asked once `echo` is done.
      { code: "const echoed = tools.echo({ text: 'x' })\nvoid tools.guarded({}).catch(() => {})\nawait echoed\nwhile (true) {}", deadlineMs: 1_500, case: 'a call left awaiting approval while the script loops: the loop is blamed, not the approval' },
    ])('S5.1 S8.1 $case, and the call awaiting approval is named as not made', async ({ code, deadlineMs }) => {
      respond = neverAnswered
      const result = await run(code, deadlineMs)
      expect(result).toMatchObject({ status: 'timeout' })
      expect(result.error?.message).toMatch(/most of it went to running the script's code/)
      expect(result.error?.message).toMatch(/\. At the deadline a tool call was still awaiting approval \(1 call: guarded \{\}\): nobody answered the approval prompt, so the call was not made\.$/)
      expect(result.error?.message).not.toMatch(/Answer the approval prompt sooner/)
    }, 60_000)

    it('S5.1 S8.1 a call running beside the one that awaited approval most of the deadline is said to may have taken effect', async () => {
      respond = neverAnswered
      const result = await run('await Promise.all([tools.guarded({}), tools.sleep({ ms: 60_000 })]); return 1', 1_000)
      expect(result).toMatchObject({ status: 'timeout' })
      expect(result.error?.message).toMatch(/the script waited for approval of a tool call \(1 call: guarded \{\}\).*\. Still running then: 1 call: sleep\. The call still running was stopped at the deadline and may or may not have taken effect: check before making it again\.$/)
    }, 60_000)
  })
})

describe('the approval deadline ending (S8.1)', () => {
  it('S8.1 names every call awaiting approval, in the plural when there are several', () => {
    const { status, error } = approvalDeadlineEnding(2_000, ['write_file', 'bash', 'write_file'], 1_900.4)
    expect(status).toBe('timeout')
    expect(error.message).toBe(
      'The script did not finish within the wall-clock limit of 2000 ms (wallClockMs): for 1900 ms of it the script waited for approval of tool calls (3 calls: write_file ×2, bash), and nobody answered the approval prompt in time, so the calls were not made. Answer the approval prompt sooner, or raise timeoutMs to leave time for the answer.',
    )
  })

  it('S8.1 after a short wait the account stays and a sentence names the calls awaiting approval, in the plural when there are several', () => {
    const error = withUnansweredApprovals({ name: 'TimeoutError', message: 'The script did not finish. Advice.' }, ['write_file', 'bash'])
    expect(error).toEqual({ name: 'TimeoutError', message: 'The script did not finish. Advice. At the deadline tool calls were still awaiting approval (2 calls: write_file, bash): nobody answered the approval prompt, so the calls were not made.' })
    expect(endedAtWallClock({ ...error, message: `The script did not finish within the wall-clock limit of 1 ms ${error.message}` })).toBe(true)
  })

  it('S9.7 only the wall clock\'s endings count as one, not the CPU limit\'s', () => {
    expect(endedAtWallClock(approvalDeadlineEnding(1_000, ['x'], 900).error)).toBe(true)
    expect(endedAtWallClock(cpuEnding(1_000).error)).toBe(false)
  })
})
