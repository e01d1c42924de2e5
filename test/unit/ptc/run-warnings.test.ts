/**
 * What a run keeps of its calls for its warnings (issue 11; issue 12: memory): a success that
 * reached the script is forgotten, so a long sequential run keeps no record a call; a failure is
 * kept, since it may explain a later warning. Each warning about calls lists their tools for the
 * host, which says which of them were still awaiting approval (S5.1, S8.1).
 */
import { describe, expect, it } from 'vitest'
import { withApprovalsNotMade } from '../../../src/ptc/approval-waits.ts'
import { callNumberOf } from '../../../src/ptc/isolate/tool-call-queue.ts'
import { RunWarnings } from '../../../src/ptc/isolate/run-warnings.ts'

describe('run warnings (issue 11, issue 12)', () => {
  it('S9.1 a delivered success is forgotten, a delivered failure is kept to explain the calls left behind', () => {
    const warnings = new RunWarnings()
    warnings.called(1, 'read', '{"path":"a"}')
    warnings.outcome(1, true, '"text"')
    warnings.delivered([[1, true, '"text"']])
    warnings.called(2, 'read', '{"path":"b"}')
    warnings.outcome(2, false, 'Tool "read" failed: no such file')
    warnings.delivered([[2, false, 'Tool "read" failed: no such file']])
    warnings.called(3, 'read', '{"path":"c"}')
    // The runtime lists 1 as pending only to show that nothing of it is left to report.
    warnings.scriptEnded('returned', '1,3', '')
    warnings.outcome(3, true, '"c"')
    const [unawaited, ...rest] = warnings.list('the end of the run')
    expect(rest).toEqual([])
    expect(unawaited!.kind).toBe('unawaited-calls')
    expect(unawaited!.message).toMatch(/^1 tool call was still running when the script returned/)
    expect(unawaited!.message).toContain('read {"path":"c"}')
    expect(unawaited!.message).not.toContain('{"path":"a"}')
    expect(unawaited!.message).toContain('read {"path":"b"} failed (Tool "read" failed: no such file)')
  })

  it('S5.1 S8.1 calls left behind are listed by number, every one, and only those awaiting approval are said not to be made', () => {
    const warnings = new RunWarnings()
    // Six calls left behind: the message names three; the first's arguments quote another tool's name.
    const calls: [string, string][] = [['note', '{"text":"effect {x}"}'], ['read', '{}'], ['read', '{}'], ['read', '{}'], ['effect', '{"n":1}'], ['effect', '{"n":2}']]
    calls.forEach(([name, args], index) => warnings.called(index + 1, name, args))
    warnings.scriptEnded('returned', '1,2,3,4,5,6', '')
    const [unawaited] = warnings.list('the end of the run')
    expect(unawaited!.calls?.map(({ id }) => id)).toEqual([1, 2, 3, 4, 5, 6])
    expect(unawaited!.calls?.[4]).toEqual({ id: 5, call: 'effect {"n":1}' })
    expect(unawaited!.message).toContain('and 3 more')
    // The sixth call, not in the message's text, awaited approval; the fifth, of the same tool, did not.
    expect(withApprovalsNotMade([unawaited!], [6])[0]!.message).toMatch(/ Among them, this call was still awaiting approval when the run ended \(nobody answered the prompt\), so it was not made: effect \{"n":2\}\.$/)
    expect(withApprovalsNotMade([unawaited!], [5, 6, 99])[0]!.message).toMatch(/ Among them, these 2 calls were still awaiting approval .*, so they were not made: effect \{"n":1\}, effect \{"n":2\}\.$/)
    // No call of the warning awaited approval: nothing to say.
    expect(withApprovalsNotMade([unawaited!], [99])[0]!.message).not.toContain('awaiting approval')
    expect(withApprovalsNotMade([{ kind: 'unhandled-rejection', message: 'effect {}' }], [1])[0]!.message).toBe('effect {}')
  })

  it('S5.1 a call of code is found by its number from its pipeline id, whatever its run_code call was named', () => {
    expect(callNumberOf('run-7:12')).toBe(12)
    expect(callNumberOf('call_a:b/run-7:12')).toBe(12)
    for (const id of ['call-3', 'run-7:', 'run-7:1.5', 'run-7:-1', 'x:1e3']) expect(callNumberOf(id), id).toBeUndefined()
  })
})
