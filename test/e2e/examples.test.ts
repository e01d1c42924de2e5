/**
 * The README's main job, as a newcomer runs it: the example scripts type-check against the
 * generated declarations and run on real input (this repository) through the real CLI (S9).
 */
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

const run = promisify(execFile)
const root = join(import.meta.dirname, '..', '..')
const ptc = (...args: string[]) =>
  run(process.execPath, [join(root, 'bin', 'ptc.js'), ...args], { cwd: root, timeout: 60_000 })

// Concurrent: every case is its own process (a `ptc` CLI or a Node example) with its own journal
// file, so they run side by side instead of one after another.
describe.concurrent('examples (S9)', { timeout: 90_000 }, () => {
  // The scripts run below are type-checked by their `ptc run` (a type error is status
  // type-error, not ok): only the others need a `ptc check` of their own.
  const RUN_BELOW = ['summarize-sources.ts', 'failing-call.ts']
  const scripts = readdirSync(join(root, 'examples', 'scripts')).filter((file) => file.endsWith('.ts'))
  // `ptc run` journals into the workspace's .ptc/journal unless --journal names a file, and the
  // workspace here is this repository: the journals go to a folder of the test's own instead.
  let journals: string
  beforeAll(() => {
    journals = mkdtempSync(join(tmpdir(), 'ptc-examples-'))
  })
  afterAll(() => {
    if (journals) rmSync(journals, { recursive: true, force: true })
  })

  it('S9.1 every example script is either run below or checked on its own', ({ expect }) => {
    expect(RUN_BELOW.every((script) => scripts.includes(script))).toBe(true)
    expect(scripts.filter((script) => !RUN_BELOW.includes(script)).length).toBeGreaterThan(0)
  })

  it.for(scripts.filter((script) => !RUN_BELOW.includes(script)))('S9.1 examples/scripts/%s type-checks against the generated declarations', async (script, { expect }) => {
    const { stdout } = await ptc('check', join('examples', 'scripts', script), '--workspace', root)
    expect(stdout).toBe('')
  })

  it('S9.2 summarize-sources type-checks, fans out reads over this repository and returns a small summary', async ({ expect }) => {
    const journal = join(journals, 'summarize-sources.jsonl')
    const { stdout } = await ptc('run', 'examples/scripts/summarize-sources.ts', '--workspace', root, '--json', '--journal', journal)
    expect(existsSync(journal)).toBe(true)
    const value = JSON.parse(stdout)
    expect(value.status).toBe('ok')
    expect(value.value.files).toBeGreaterThan(20)
    expect(value.toolCalls).toBe(value.value.files + 2)
    expect(value.value.largest).toHaveLength(5)
    expect(value.value.byPart.pipeline.files).toBeGreaterThan(0)
    expect(value.logs).toEqual([{ level: 'log', text: `read ${value.value.files} files` }])
  })

  it('S9.3 failing-call type-checks and catches the ToolCallError of a path outside the workspace', async ({ expect }) => {
    const journal = join(journals, 'failing-call.jsonl')
    const { stdout } = await ptc('run', 'examples/scripts/failing-call.ts', '--workspace', root, '--json', '--journal', journal)
    expect(existsSync(journal)).toBe(true)
    const value = JSON.parse(stdout)
    expect(value.status).toBe('ok')
    expect(value.value.refused).toBe('read_file')
    expect(value.value.why).toMatch(/outside the workspace/)
  })

  it('the library example runs a tool directly and from run_code, with a policy denial inside the script', async ({ expect }) => {
    const { stdout } = await run(process.execPath, ['--no-node-snapshot', join(root, 'examples', 'library.ts')], { cwd: root, timeout: 60_000 })
    expect(stdout).toContain("{ city: 'Lisbon', celsius: [ 20, 21 ] }")
    expect(stdout).toContain("'Atlantis: Atlantis is not a real city.'")
  })

  it('issue 15 the AI SDK example: a mock model calls run_code, the script calls AI SDK tools and a needsApproval call is denied headless', async ({ expect }) => {
    const { stdout } = await run(process.execPath, ['--no-node-snapshot', join(root, 'examples', 'ai-sdk.ts')], { cwd: root, timeout: 60_000 })
    const value = JSON.parse(stdout.split('\n')[0]!.replace('run_code value: ', ''))
    expect(value).toMatchObject({ status: 'ok', value: { warmest: 'Lisbon', booking: expect.stringMatching(/needs approval.*denied/) }, toolCalls: 4 })
    expect(stdout).toContain('The model read:\nstatus: ok (4 tool calls')
  })

  it('issue 15 the Agents SDK example: the code tool is an interruption, approved, then the script calls the agent tool in parallel', async ({ expect }) => {
    const { stdout } = await run(process.execPath, ['--no-node-snapshot', join(root, 'examples', 'openai-agents.ts')], { cwd: root, timeout: 60_000 })
    const [approving, valueLine] = stdout.split('\n')
    expect(approving).toBe('approving run_code')
    expect(JSON.parse(valueLine!.replace('run_code value: ', ''))).toMatchObject({ status: 'ok', value: { city: 'Lisbon', max: 23 }, toolCalls: 3 })
    expect(stdout).toContain('The model read:\nstatus: ok (3 tool calls')
  })
})
