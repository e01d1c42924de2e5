import { describe, expect, it } from 'vitest'
import { terminalSafe } from '../../../src/terminal-safe.ts'

describe('terminalSafe', () => {
  it('makes escape sequences visible so a script cannot drive the terminal (OSC 52, clear screen, C1 CSI)', () => {
    expect(terminalSafe('a\u001b]52;c;aGk=\u0007b\u001b[2Jc\u009b31md')).toBe('a\\x1b]52;c;aGk=\\x07b\\x1b[2Jc\\x9b31md')
  })

  it('keeps newlines and tabs, folds CRLF and shows a lone CR', () => {
    expect(terminalSafe('one\r\ntwo\tthree\rfour')).toBe('one\ntwo\tthree\\x0dfour')
  })

  it('shows bidirectional overrides and isolates, so a path cannot reorder what the terminal shows (Trojan Source)', () => {
    expect(terminalSafe('invoice\u202egnp.exe \u2066x\u2069 \u202ay\u202c')).toBe('invoice\\u202egnp.exe \\u2066x\\u2069 \\u202ay\\u202c')
  })
})
