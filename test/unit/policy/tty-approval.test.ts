import fs from 'node:fs'
import path from 'node:path'
import { PassThrough } from 'node:stream'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { ApprovalNotObtainedError } from '../../../src/errors/ptc-error.ts'
import { Execution, NEVER_ABORTED } from '../../../src/pipeline/execution.ts'
import * as ttyApproval from '../../../src/policy/tty-approval.ts'
import { createTtyResponder, formatApprovalPrompt, isYes } from '../../../src/policy/tty-approval.ts'
import type { ApprovalRequest, ToolExecution } from '../../../src/tools/types.ts'
import { type WorkspaceFixture, workspaceFixture } from '../builtin/workspace-fixture.ts'

const request = (signal = new AbortController().signal, extra: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  execution: { name: 'write_file', arguments: { path: '/x', content: 'y' }, callerSignal: signal } as unknown as ToolExecution,
  displayReason: 'Allow write_file to write /x, outside the workspace? (once)',
  ...extra,
})

function streams() {
  const input = new PassThrough()
  const output = new PassThrough()
  let written = ''
  output.on('data', (chunk) => (written += chunk))
  /** Wait until the `count`-th prompt has been shown, then type `line`. */
  const answer = async (count: number, line: string) => {
    for (let i = 0; i < 200 && written.split('Allow once?').length - 1 < count; i++) await new Promise((resolve) => setTimeout(resolve, 5))
    input.write(`${line}\n`)
  }
  return { input, output, written: () => written, answer }
}

describe('TTY approval responder', () => {
  it('S8.1 "y" answers allowed-once; anything else denies', async () => {
    const io = streams()
    const { responder, close } = createTtyResponder(io)
    const next = () => 'unavailable' as const
    const first = responder(request(), next)
    await io.answer(1, 'y')
    expect(await first).toBe('allowed-once')
    const second = responder(request(), next)
    await io.answer(2, 'no')
    expect(await second).toBe('denied')
    expect(io.written()).toContain('Allow write_file to write /x, outside the workspace? (once)')
    close()
  })

  it('S8.1 prompts one at a time, in order; a line typed before its prompt answers nothing', async () => {
    const io = streams()
    const { responder, close } = createTtyResponder(io)
    io.input.write('y\n') // type-ahead: no prompt is showing, so it must not approve anything
    await new Promise((resolve) => setTimeout(resolve, 20))
    const a = responder(request(), () => 'unavailable')
    const b = responder(request(), () => 'unavailable')
    await io.answer(1, 'n')
    await io.answer(2, 'y')
    expect([await a, await b]).toEqual(['denied', 'allowed-once'])
    expect(io.written().split('Allow once?')).toHaveLength(3)
    close()
  })

  it('S8.2 end of input is no answer, not a refusal: the pending and later prompts throw ApprovalNotObtainedError saying input ended and what to do', async () => {
    const io = streams()
    const { responder } = createTtyResponder(io)
    const pending = responder(request(), () => 'unavailable')
    await io.answer(1, 'n')
    expect(await pending).toBe('denied') // an explicit no is still a refusal
    const ended = responder(request(), () => 'unavailable')
    for (let i = 0; i < 200 && io.written().split('Allow once?').length < 3; i++) await new Promise((resolve) => setTimeout(resolve, 5))
    io.input.end()
    const errors = await Promise.all([ended, responder(request(), () => 'unavailable')].map((answer) => Promise.resolve(answer).then(() => undefined, (error: unknown) => error)))
    for (const error of errors) {
      expect(ApprovalNotObtainedError.isInstance(error)).toBe(true)
      expect((error as Error).message).toMatch(/^the terminal's input ended .*before anyone answered the approval prompt$/)
      expect((error as ApprovalNotObtainedError).details).toEqual({ advice: expect.stringMatching(/answer the prompt at a terminal.*--preset that allows/) })
    }
    expect(io.written()).toMatch(/Allow once\? \[y\/N\] \(no answer: the input ended\)\n$/)
  })

  it('S8.2 a call stopped while its prompt waits is not answered, not refused', async () => {
    const io = streams()
    const { responder, close } = createTtyResponder(io)
    const stop = new AbortController()
    const stopped = responder(request(stop.signal), () => 'unavailable')
    await new Promise((resolve) => setTimeout(resolve, 10))
    stop.abort()
    const error = await Promise.resolve(stopped).then(() => undefined, (thrown: unknown) => thrown)
    expect(ApprovalNotObtainedError.isInstance(error)).toBe(true)
    expect((error as Error).message).toBe('the call was stopped before anyone answered the approval prompt')
    expect(io.written()).toMatch(/\(not answered: the call was stopped\)\n$/)
    close()
  })

  it('S8.2 an input that already ended (ptc run - read the script from it) shows no prompt and throws at once that input ended', async () => {
    const io = streams()
    io.input.resume()
    io.input.end()
    await new Promise((resolve) => io.input.once('end', resolve))
    const { responder, close } = createTtyResponder(io)
    const error = await Promise.race([
      Promise.resolve(responder(request(), () => 'unavailable')).then(() => undefined, (thrown: unknown) => thrown),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 500)),
    ])
    expect(ApprovalNotObtainedError.isInstance(error)).toBe(true)
    expect((error as Error).message).toMatch(/^the terminal's input ended /)
    expect(io.written()).not.toContain('Allow once?')
    close()
  })

  it("S8.2 S6.3 the host's stop (not only the caller's) ends a waiting prompt unanswered, as the pipeline's stop does", async () => {
    const io = streams()
    const { responder, close } = createTtyResponder(io)
    const host = new AbortController()
    const execution = new Execution({ callId: 'c1', name: 'write_file', args: { path: '/x' }, agent: undefined, parentToken: undefined, callerSignal: NEVER_ABORTED, stopSignal: host.signal, timeoutMs: undefined })
    const stopped = responder({ execution, reason: 'outside' }, () => 'unavailable')
    for (let i = 0; i < 200 && !io.written().includes('Allow once?'); i++) await new Promise((resolve) => setTimeout(resolve, 5))
    host.abort()
    const error = await Promise.race([
      Promise.resolve(stopped).then(() => undefined, (thrown: unknown) => thrown),
      new Promise((resolve) => setTimeout(() => resolve('still waiting'), 500)),
    ])
    expect(ApprovalNotObtainedError.isInstance(error)).toBe(true)
    expect((error as Error).message).toBe('the call was stopped before anyone answered the approval prompt')
    close()
  })

  it('formats a prompt with the reason and the arguments; accepts only y/yes', () => {
    expect(formatApprovalPrompt(request())).toBe('\n[approval] Allow write_file to write /x, outside the workspace? (once)\n  write_file {"path":"/x","content":"y"}\n  Allow once? [y/N] ')
    expect(['y', 'Y', ' yes ', 'YES'].every(isYes)).toBe(true)
    expect(['', 'n', 'yep', 'y y'].some(isYes)).toBe(false)
  })

  it('S8.1 a path a script chose cannot drive the terminal from the prompt: ESC, CR and C1 characters in the reason and arguments are shown as \\xNN', () => {
    const path = '../evil.txt\u001b[2K\r\u001b[1A  write notes.txt (inside workspace)\u009b2J'
    const prompt = formatApprovalPrompt(request(undefined, { displayReason: `Allow write_file to write ${path}, outside the workspace? (once)`, execution: { name: 'write_file', arguments: { path, content: 'x' } } as unknown as ToolExecution }))
    expect(prompt).not.toMatch(/[\u001b\r\u009b]/)
    expect(prompt).toContain('write ../evil.txt\\x1b[2K\\x0d\\x1b[1A  write notes.txt (inside workspace)\\x9b2J, outside')
  })
})

describe('TTY approval in the pipeline', () => {
  let ws: WorkspaceFixture
  beforeEach(async () => {
    ws = await workspaceFixture()
  })
  afterEach(() => ws.cleanup())

  it('S8.1 a write outside the workspace runs after the person answers y at the prompt', async () => {
    const io = streams()
    await ws.root.plugin(ttyApproval, io)
    const target = path.join(ws.outside, 'approved.txt')
    const pending = ws.call('write_file', { path: target, content: 'ok' })
    await io.answer(1, 'y')
    expect((await pending).isError).toBe(false)
    expect(fs.readFileSync(target, 'utf8')).toBe('ok')
  })

  it('S8.2 at end of input the call is not made, and its error says the approval could not be obtained because input ended, not that it was refused', async () => {
    const io = streams()
    await ws.root.plugin(ttyApproval, io)
    io.input.end()
    const target = path.join(ws.outside, 'unanswered.txt')
    const result = await ws.call('write_file', { path: target, content: 'no' })
    expect(result.error?.kind).toBe('denied')
    expect(result.error?.message).toMatch(/^This call needs approval .*, but the approval could not be obtained, so the call was not made \(nobody refused it\): the terminal's input ended .*before anyone answered the approval prompt\. .*--preset that allows/)
    expect(result.error?.message).not.toMatch(/Approval was refused/)
    expect(fs.existsSync(target)).toBe(false)
  })
})
