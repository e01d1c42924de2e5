/**
 * V8's heap out-of-memory report is dropped from an isolate worker's stderr, and everything else
 * passes through in order, however the text is cut into chunks (SPEC S9.1, S9.7; a package trial
 * saw the report on `ptc run`'s stderr for a run that answered `memory`).
 */
import { describe, expect, it } from 'vitest'
import { dropV8OomReports } from '../../../src/ptc/isolate/v8-oom-report.ts'

const REPORT = [
  '',
  '<--- Last few GCs --->',
  '',
  '[16785:0x15f26000]     1656 ms: Mark-Compact (reduce) 120.6 (125.3) -> 120.6 (122.3) MB, pooled: 0 MB, 85.37 / 0.00 ms  (average mu = 0.342, current mu = 0.001) last resort; GC in old space requested',
  '[16785:0x15f26000]     1705 ms: Mark-Compact (reduce) 120.6 (122.3) -> 120.6 (122.3) MB, pooled: 0 MB, 49.74 / 0.00 ms  (average mu = 0.233, current mu = 0.001) last resort; GC in old space requested',
  '',
  '',
  '<--- JS stacktrace --->',
  '',
  '',
].join('\n')

/** What the filter forwards for `text` cut into chunks of `size` characters. */
function forwarded(text: string, size: number): string {
  const filter = dropV8OomReports()
  let out = ''
  for (let index = 0; index < text.length; index += size) out += filter.push(text.slice(index, index + size))
  return out + filter.end()
}

describe("an isolate worker's stderr (S9.7)", () => {
  it.each([1, 7, 10_000])('S9.7 drops a V8 out-of-memory report and keeps the lines around it, in chunks of %i', (size) => {
    const before = '(node:123) Warning: something the operator should see\n'
    const after = 'a line after it\nand one without a newline'
    expect(forwarded(`${before}${REPORT}\n${after}`, size)).toBe(`${before}${after}`)
  })

  it('S9.7 passes everything else through unchanged: blank and whitespace-only lines, bracketed lines outside a report, a last line without newline', () => {
    const text = 'first\n\n  \n[1:0x1] 5 ms: not in a report\n<--- JS stacktrace --->\nlast\t'
    expect(forwarded(text, 3)).toBe(text)
    expect(forwarded('a\n\n\t\n', 2)).toBe('a\n\n\t\n')
  })

  it("S9.7 forwards a report followed by V8's FATAL ERROR: then the worker process itself ran out of memory, which is the operator's to see", () => {
    const fatal = 'FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory\n'
    expect(forwarded(`${REPORT}\n${fatal}`, 5)).toBe(`${REPORT}\n${fatal}`)
  })
})
