import { describe, expect, it } from 'vitest'
import { approvalOf, jobOf, outcomeOf, Timeline } from '../../../src/view/client/timeline.ts'

const call = (callId: string, name: string, args: unknown = {}, extra: object = {}) => ({ type: 'tool/call', callId, name, arguments: args, agent: 'a', fromCode: callId.includes('/'), ...extra })
const result = (callId: string, name: string, extra: object = {}) => ({ type: 'tool/result', callId, name, arguments: {}, agent: 'a', isError: false, content: [], durationMs: 1, ...extra })

describe('view timeline (S11.6, raw tool/call and tool/result records)', () => {
  it('S11.6 calls from code nest under their run_code call by the parent call id, in start order', () => {
    const timeline = new Timeline()
    for (const record of [
      call('run_1', 'run_code', { code: 'x' }),
      call('run_1/aa:1', 'read_file'),
      call('run_1/aa:2', 'glob'),
      result('run_1/aa:2', 'glob'),
      call('other', 'echo'),
      result('run_1/aa:1', 'read_file'),
      call('run_2', 'run_code'),
      call('child', 'echo', {}, { parentCallId: 'run_2' }),
      result('run_1', 'run_code', { value: { status: 'ok' } }),
    ]) timeline.add(record)
    expect(timeline.roots.map((node) => node.callId)).toEqual(['run_1', 'other', 'run_2'])
    expect(timeline.roots[0]!.children.map((node) => [node.callId, node.order])).toEqual([['run_1/aa:1', 2], ['run_1/aa:2', 3]])
    expect(timeline.roots[2]!.children.map((node) => node.callId)).toEqual(['child'])
    expect(timeline.byId.get('run_1/aa:1')!.result).toMatchObject({ type: 'tool/result' })
  })

  it('S5 policy outcomes are spelled out: denied, cancelled, timed out, blocked; run_code by its status', () => {
    const timeline = new Timeline()
    const outcomes = [
      ['d', { isError: true, error: { kind: 'denied', message: 'no' } }],
      ['c', { isError: true, error: { kind: 'cancelled', message: 'stop' } }],
      ['t', { isError: true, error: { kind: 'timeout', message: 'late' } }],
      ['b', { isError: true, error: { kind: 'blocked', message: 'post' } }],
      ['f', { isError: true, error: { kind: 'failed', message: 'boom' } }],
      ['v', { isError: true, error: { kind: 'invalid-arguments', message: 'bad' } }],
    ] as const
    for (const [id, extra] of outcomes) {
      timeline.add(call(id, 'echo'))
      timeline.add(result(id, 'echo', extra))
    }
    timeline.add(call('running', 'echo'))
    timeline.add(call('r', 'run_code'))
    timeline.add(result('r', 'run_code', { value: { status: 'timeout' } }))
    expect([...timeline.byId.values()].map(outcomeOf)).toEqual(['denied', 'cancelled', 'timeout', 'blocked', 'failed', 'invalid', 'running', 'timeout'])
  })

  it('S8.1 an approval record marks the call as asked, with what came back', () => {
    const timeline = new Timeline()
    timeline.add(call('x', 'guarded'))
    timeline.add({ type: 'tool/approval', callId: 'x', name: 'guarded', outcome: 'unavailable' })
    timeline.add(result('x', 'guarded', { isError: true, error: { kind: 'denied', message: 'no approval channel' } }))
    const node = timeline.byId.get('x')!
    expect([approvalOf(node), outcomeOf(node)]).toEqual(['not obtained', 'denied'])
  })

  it('S8.2 a call stopped while it awaited approval reads "not answered", not "refused"; an explicit no still reads refused', () => {
    const timeline = new Timeline()
    timeline.add(call('s', 'bash', { command: 'rm -rf out' }))
    timeline.add({ type: 'tool/approval', callId: 's', name: 'bash', outcome: 'unavailable', stopped: true })
    timeline.add(result('s', 'bash', { isError: true, error: { kind: 'cancelled', message: 'The tool call was cancelled before it started; nothing was done.' } }))
    timeline.add(call('n', 'bash', { command: 'rm -rf out' }))
    timeline.add({ type: 'tool/approval', callId: 'n', name: 'bash', outcome: 'denied' })
    timeline.add(result('n', 'bash', { isError: true, error: { kind: 'denied', message: 'Approval was refused' } }))
    const [stopped, refused] = [timeline.byId.get('s')!, timeline.byId.get('n')!]
    expect([approvalOf(stopped), outcomeOf(stopped)]).toEqual(['not answered: the call was stopped', 'cancelled'])
    expect([approvalOf(refused), outcomeOf(refused)]).toEqual(['refused', 'denied'])
  })

  it('S10.6 a background job links the call that started it to the calls that read it', () => {
    const timeline = new Timeline()
    timeline.add(call('s', 'bash', { command: 'make', background: true }))
    timeline.add(result('s', 'bash', { value: { kind: 'background', jobId: 'bash-1' } }))
    timeline.add(call('r', 'job_read', { jobId: 'bash-1' }))
    expect([jobOf(timeline.byId.get('s')!), jobOf(timeline.byId.get('r')!)]).toEqual([{ jobId: 'bash-1', started: true }, { jobId: 'bash-1', started: false }])
  })

  it('records of other types and malformed records change nothing; unreadable lines become notes', () => {
    const timeline = new Timeline()
    for (const junk of [null, 3, 'x', [], { type: 'tool/call' }, { type: 'other', callId: 'a' }]) expect(timeline.add(junk)).toBeUndefined()
    timeline.add({ type: 'view/note', offset: 10, text: 'a line that is not JSON; skipped' })
    expect(timeline.roots).toEqual([])
    expect(timeline.notes).toEqual(['a line that is not JSON; skipped (byte 10)'])
  })
})
