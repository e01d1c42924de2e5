/**
 * What a run keeps of its calls for its warnings (issue 11; issue 12: memory): a success that
 * reached the script is forgotten, so a long sequential run keeps no record a call; a failure is
 * kept, since it may explain a later warning.
 */
import { describe, expect, it } from 'vitest'
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
})
