/**
 * Conformance: the official MCP Inspector (`@modelcontextprotocol/inspector`, pinned, CLI mode)
 * against `ptc serve --stdio`. Each Inspector run spawns its own `ptc serve`, talks MCP to it and
 * exits; it runs in a process group of its own, so the test can check that nothing it started
 * (the Inspector, ptc, an isolate's helper) outlives it.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { Ajv2020 } from 'ajv/dist/2020.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { groupAlive } from '../helpers/process-alive.ts'
import { NODE_ARGS } from './serve-helpers.ts'

const INSPECTOR_PACKAGE = createRequire(import.meta.url).resolve('@modelcontextprotocol/inspector/package.json')
const INSPECTOR_BIN = join(dirname(INSPECTOR_PACKAGE), (JSON.parse(readFileSync(INSPECTOR_PACKAGE, 'utf8')) as { bin: Record<string, string> }).bin['mcp-inspector']!)

interface InspectorOutcome {
  code: number | null
  stdout: string
  stderr: string
  /** Whether a process of the Inspector's group was still running (a zombie is not) a while after it exited; also true when the group was not seen running at its start (the check itself failed). */
  leftBehind: boolean
}

const groups = new Set<number>()

/** Run `mcp-inspector --cli <ptc serve --stdio …> …args` in its own process group. */
function inspector(workspace: string, args: string[]): Promise<InspectorOutcome> {
  const child = spawn(process.execPath, [INSPECTOR_BIN, '--cli', process.execPath, ...NODE_ARGS, 'serve', '--stdio', '--workspace', workspace, '--checkers', '1', ...args], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    // The Inspector's catalog file lives in the test's folder, never in the user's home.
    env: { ...process.env, MCP_CATALOG_PATH: join(workspace, 'inspector-catalog.json') },
  })
  groups.add(child.pid!)
  // The check `leftBehind` rests on must see a group that runs: were /proc unreadable, it would find none, ever.
  const seenRunning = groupAlive(child.pid!)
  let stdout = ''
  let stderr = ''
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  return new Promise((resolve) => {
    child.once('close', async (code) => {
      // ptc serve exits when its stdin closes; give it a few seconds to finish doing so.
      for (let i = 0; i < 50 && groupAlive(child.pid!); i++) await new Promise((done) => setTimeout(done, 100))
      resolve({ code, stdout, stderr, leftBehind: !seenRunning || groupAlive(child.pid!) })
    })
  })
}

/** The JSON document the Inspector prints on stdout: the tools/list or tools/call result. */
function answer(outcome: InspectorOutcome): Record<string, unknown> {
  expect(outcome.stdout.trim(), `nothing on the Inspector's stdout; stderr: ${outcome.stderr}`).not.toBe('')
  return JSON.parse(outcome.stdout) as Record<string, unknown>
}

type ListedTool = { name: string; title?: string; description?: string; inputSchema: Record<string, unknown>; outputSchema?: Record<string, unknown>; annotations?: Record<string, unknown> }

describe('the MCP Inspector CLI against ptc serve --stdio (S9.2, S9.4)', { timeout: 120_000 }, () => {
  let workspace: string
  let runCode: ListedTool
  beforeAll(() => {
    workspace = mkdtempSync(join(tmpdir(), 'ptc-inspector-'))
  })
  /** Assert that `value` is valid against the `outputSchema` the Inspector listed for run_code. */
  const expectValidRunValue = (value: unknown) => {
    const validate = new Ajv2020({ strict: false }).compile(runCode.outputSchema!)
    expect(validate(value), JSON.stringify(validate.errors)).toBe(true)
  }
  afterAll(() => {
    // Only if a test failed half-way: stop whatever its group left running.
    for (const pgid of groups) if (groupAlive(pgid)) process.kill(-pgid, 'SIGKILL')
    // The workspace holds the runs' journals and spill folder; remove it even after a failure.
    if (workspace) rmSync(workspace, { recursive: true, force: true, maxRetries: 3 })
  })

  it('tools/list: run_code with its title, hints, input and output schemas, and no schema finding at all under --strict, every tool exposed (issue 10)', async () => {
    const outcome = await inspector(workspace, ['--expose-tools', '--method', 'tools/list', '--strict', '--format', 'json'])
    expect(outcome.code, outcome.stderr).toBe(0)
    expect(outcome.leftBehind).toBe(false)
    // --format json puts the lint's findings (errors and warnings: a `type` array, say) beside the result.
    const envelope = answer(outcome) as { result: { tools: ListedTool[] }; schemaFindings?: unknown[] }
    expect(envelope.schemaFindings ?? []).toEqual([])
    expect(outcome.stderr).not.toMatch(/^(Warning|Error): /m)
    const tools = envelope.result.tools
    expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['run_code', 'job_list', 'job_read', 'job_kill']))
    runCode = tools.find((tool) => tool.name === 'run_code')!
    expect(runCode.title).toBe('Run TypeScript that calls tools')
    expect(runCode.description).toContain('declare const tools: {')
    expect(runCode.inputSchema).toMatchObject({ type: 'object', required: ['code'] })
    expect(runCode.outputSchema).toMatchObject({ type: 'object' })
    // The built-in tools include bash: a script may destroy and reach the outside world.
    expect(runCode.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: true })
    // The nullable fields of the job tools are anyOf branches of one type each.
    const jobRead = tools.find((tool) => tool.name === 'job_read')!
    expect((jobRead.outputSchema as { properties: Record<string, unknown> }).properties.exitCode).toMatchObject({ anyOf: [{ type: 'number' }, { type: 'null' }] })
  })

  it('tools/call run_code: an ok run is isError false, its structuredContent valid against the listed outputSchema', async () => {
    const outcome = await inspector(workspace, ['--method', 'tools/call', '--tool-name', 'run_code', '--tool-arg', 'code=const n: number = 20 + 22; return { n }'])
    expect(outcome.code, outcome.stderr).toBe(0)
    expect(outcome.leftBehind).toBe(false)
    const result = answer(outcome)
    expect(result.isError).toBe(false)
    expect(result.structuredContent).toMatchObject({ status: 'ok', value: { n: 42 }, toolCalls: 0 })
    expect(JSON.stringify(result.content)).toContain('status: ok')
    expectValidRunValue(result.structuredContent)
  })

  it('tools/call run_code: a script that throws is isError true with its whole value, and the Inspector reports the tool error (exit 5)', async () => {
    const outcome = await inspector(workspace, ['--method', 'tools/call', '--tool-name', 'run_code', '--tool-arg', 'code=throw new Error("boom from the script")'])
    expect(outcome.code).toBe(5)
    expect(outcome.leftBehind).toBe(false)
    expect(outcome.stderr).toMatch(/"code":"tool_is_error"/)
    const result = answer(outcome)
    expect(result.isError).toBe(true)
    expect(result.structuredContent).toMatchObject({ status: 'error', error: { name: 'Error', message: 'boom from the script' } })
    expect(JSON.stringify(result.content)).toContain('boom from the script')
    expectValidRunValue(result.structuredContent)
  })

  it('tools/call run_code: a script that fails the type check is isError true with status type-error and its diagnostics', async () => {
    const outcome = await inspector(workspace, ['--method', 'tools/call', '--tool-name', 'run_code', '--tool-arg', 'code=const n: number = "not a number"; return n'])
    expect(outcome.code).toBe(5)
    expect(outcome.leftBehind).toBe(false)
    const result = answer(outcome)
    expect(result.isError).toBe(true)
    expect(result.structuredContent).toMatchObject({ status: 'type-error', toolCalls: 0 })
    expect(JSON.stringify((result.structuredContent as { diagnostics: unknown[] }).diagnostics)).toMatch(/not assignable to type 'number'/)
    expectValidRunValue(result.structuredContent)
  })
})
