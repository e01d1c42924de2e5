import { describe, expect, it } from 'vitest'
import { countErrors, MAX_DIAGNOSTICS, missingPlatformMessage, refineDiagnostics, unknownToolMessage } from '../../../src/ptc/format-diagnostics.ts'

describe('what the model reads of a type check (S9.1)', () => {
  it('S9.1 keeps TypeScript related hints under their error, with their position', () => {
    const refined = refineDiagnostics([
      { line: 2, column: 13, code: 2339, category: 'error', message: "Property 'text' does not exist on type 'Promise<{ text: string; }>'.", related: [{ line: 1, column: 11, message: "Did you forget to use 'await'?" }] },
    ])
    expect(refined).toEqual([{ line: 2, column: 13, code: 2339, category: 'error', message: "Property 'text' does not exist on type 'Promise<{ text: string; }>'.\n1:11 Did you forget to use 'await'?" }])
  })

  it('S9.1 drops an implicit-any error that follows an earlier error on the same line, keeps one on its own line', () => {
    const refined = refineDiagnostics([
      { line: 2, column: 35, code: 7006, category: 'error', message: "Parameter 'l' implicitly has an 'any' type." },
      { line: 2, column: 13, code: 2339, category: 'error', message: "Property 'text' does not exist on type 'Promise<…>'." },
      { line: 4, column: 12, code: 7006, category: 'error', message: "Parameter 'x' implicitly has an 'any' type." },
    ])
    expect(refined.map((d) => `${d.line}:${d.column} TS${d.code}`)).toEqual(['2:13 TS2339', '4:12 TS7006'])
  })

  it('S9.1 reports at most MAX_DIAGNOSTICS, in position order, then one that counts the rest (a long script of errors gave more than an MCP message holds)', () => {
    const findings = Array.from({ length: 250 }, (_, index) => ({ line: 250 - index, column: 3, code: 2339, category: (index % 50 === 0 ? 'warning' : 'error') as 'error' | 'warning', message: `Property 'zz${250 - index}' does not exist.` }))
    const refined = refineDiagnostics(findings)
    expect(refined).toHaveLength(MAX_DIAGNOSTICS + 1)
    expect(refined.slice(0, MAX_DIAGNOSTICS).map((d) => d.line)).toEqual(Array.from({ length: MAX_DIAGNOSTICS }, (_, index) => index + 1))
    const rest = findings.filter((finding) => finding.line > MAX_DIAGNOSTICS)
    expect(refined[MAX_DIAGNOSTICS]).toEqual({ line: MAX_DIAGNOSTICS + 1, column: 3, category: 'error', message: `150 more diagnostics (${rest.filter((f) => f.category === 'error').length} of them errors) from line 101 on are not shown: fix the ones above and check again.` })
    expect(refineDiagnostics(findings.slice(0, MAX_DIAGNOSTICS))).toHaveLength(MAX_DIAGNOSTICS)
  })

  it("S9.1 the run's type-error count is every error, those past MAX_DIAGNOSTICS included, and the line counting them is not one (it said 101 of 300)", () => {
    const findings = Array.from({ length: 300 }, (_, index) => ({ line: index + 1, column: 3, code: 2339, category: (index % 50 === 0 ? 'warning' : 'error') as 'error' | 'warning', message: `Property 'zz${index}' does not exist.` }))
    expect(countErrors(refineDiagnostics(findings))).toBe(294)
    expect(countErrors(refineDiagnostics(findings.slice(0, 20)))).toBe(19)
  })

  it('S9.1 an unknown tool name lists the closest names and every tool instead of the tools type', () => {
    expect(unknownToolMessage('raed_file', ['write_file', 'read_file', 'bash'])).toBe("There is no tool named 'raed_file'. Did you mean 'read_file'? The tools are: bash, read_file, write_file.")
    expect(unknownToolMessage('fetch', ['bash'])).toBe("There is no tool named 'fetch'. The tools are: bash.")
    expect(unknownToolMessage('x', [])).toBe("There is no tool named 'x'. No tools are available.")
    const many = Array.from({ length: 50 }, (_, i) => `tool_${String(i).padStart(2, '0')}`)
    expect(unknownToolMessage('tool_7', many)).toBe("There is no tool named 'tool_7'. Did you mean 'tool_07' or 'tool_17' or 'tool_27'? There are 50 tools; see the declarations for the full list.")
    const refined = refineDiagnostics([{ line: 1, column: 23, code: 2551, category: 'error', message: "Property 'raed_file' does not exist on type '{ readonly bash: …'.", unknownTool: { name: 'raed_file', available: ['read_file', 'bash'] } }])
    expect(refined[0]!.message).toBe("There is no tool named 'raed_file'. Did you mean 'read_file'? The tools are: bash, read_file.")
  })

  it("S9.1 a missing name TypeScript gives project advice for (install @types/node, change 'lib') is explained for scripts instead", () => {
    const refined = refineDiagnostics([
      { line: 1, column: 1, code: 2580, category: 'error', message: "Cannot find name 'process'. Do you need to install type definitions for node? Try `npm i --save-dev @types/node`." },
      { line: 2, column: 1, code: 2584, category: 'error', message: "Cannot find name 'document'. Do you need to change your target library? Try changing the 'lib' compiler option to include 'dom'." },
      { line: 3, column: 1, code: 2583, category: 'error', message: "Cannot find name 'Atomics'. Do you need to change your target library? Try changing the 'lib' compiler option to 'es2017' or later." },
      { line: 4, column: 1, code: 2304, category: 'error', message: "Cannot find name 'foo'." },
      { line: 5, column: 1, code: 2592, category: 'error', message: "Cannot find name '$'. Do you need to install type definitions for jQuery? Try `npm i --save-dev @types/jquery` and then add 'jquery' to the types field in your tsconfig." },
      { line: 6, column: 1, code: 2550, category: 'error', message: "Property 'union' does not exist on type 'Set<number>'. Do you need to change your target library? Try changing the 'lib' compiler option to 'es2025' or later." },
      // Timers and other host globals come as a plain TS2304, without advice.
      { line: 7, column: 1, code: 2304, category: 'error', message: "Cannot find name 'setTimeout'." },
      { line: 8, column: 1, code: 2304, category: 'error', message: "Cannot find name 'structuredClone'." },
      // `export const x = 1` at the top of a script.
      { line: 9, column: 1, code: 1184, category: 'error', message: 'Modifiers cannot appear here.' },
    ])
    expect(refined.map((d) => d.message)).toEqual([
      missingPlatformMessage('process'),
      missingPlatformMessage('document'),
      "Cannot find name 'Atomics': scripts have no shared memory (SharedArrayBuffer, Atomics).",
      "Cannot find name 'foo'.",
      missingPlatformMessage('$'),
      "Property 'union' does not exist on type 'Set<number>': scripts are checked against ES2025, which does not have it; use what ES2025 has.",
      missingPlatformMessage('setTimeout'),
      missingPlatformMessage('structuredClone'),
      'Modifiers cannot appear here: a script is the body of an async function, not a module, so it cannot export; return what the caller needs instead.',
    ])
  })
})
