/**
 * `ptc replay` end to end (S11.3): run a script in human mode with `--journal FILE`, capture the
 * cards the live run printed on stderr, replay the journal, and compare byte for byte.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runPtc } from './ptc-cli.ts'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

const ptc = (args: string[], cwd: string) => runPtc(args, cwd, 85_000)

const SCRIPT = `
await tools.write_file({ path: 'notes/hello.txt', content: 'one\\ntwo\\nthree\\n' })
const read = await tools.read_file({ path: 'notes/hello.txt' })
await tools.edit_file({ path: 'notes/hello.txt', old: 'two', new: 'TWO' })
const shell = await tools.bash({ command: 'ls notes && echo done >&2 && exit 3' })
const listing = await tools.list_dir({ path: '.' })
let refused = ''
try {
  await tools.read_file({ path: '../outside.txt' })
} catch (error) {
  refused = (error as Error).name
}
const job = await tools.bash({ command: 'echo from the job', background: true })
const jobId = 'jobId' in job ? job.jobId : ''
let status = 'running'
// Until the job ends, however loaded the machine: the run's --timeout-ms bounds the wait.
while (status === 'running') status = (await tools.job_read({ jobId, waitMs: 200 })).status
await tools.job_list({})
await tools.job_kill({ jobId })
return { refused, status }
`

describe('ptc replay (S11.3)', () => {
  it('S11.3 ptc replay of a run journal prints byte for byte the cards the live run printed', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ptc-replay-e2e-'))
    dirs.push(root)
    const workspace = join(root, 'ws')
    mkdirSync(workspace)
    writeFileSync(join(root, 'script.ts'), SCRIPT)
    const journal = join(root, 'session.jsonl')
    const live = await ptc(['run', join(root, 'script.ts'), '--workspace', workspace, '--journal', journal, '--timeout-ms', '80000'], root)
    expect(JSON.parse(live.stdout)).toEqual({ refused: 'ToolCallError', status: 'exited' })
    expect(live.code).toBe(0)
    // The live cards: pending and completed cards of every call, nothing else.
    expect(live.stderr).toContain('$ ls notes && echo done >&2 && exit 3')
    expect(live.stderr).toContain('[background]')
    const replay = await ptc(['replay', journal], root)
    expect(replay.stderr).toBe('')
    expect(replay.code).toBe(0)
    expect(replay.stdout).toBe(live.stderr)
    // Every call of the script is in the journal, with its result: ten calls, job_read counted once
    // (a fast job ends before the first poll; a slow one takes more polls).
    const records = readFileSync(journal, 'utf8').trimEnd().split('\n').map((line) => JSON.parse(line))
    const calls = records.filter((record) => record.type === 'tool/call' && record.name !== 'run_code')
    expect(calls.length).toBeGreaterThanOrEqual(10)
    expect(new Set(calls.map((record) => record.name))).toEqual(new Set(['write_file', 'read_file', 'edit_file', 'bash', 'list_dir', 'job_read', 'job_list', 'job_kill']))
    expect(records.filter((record) => record.type === 'tool/result' && record.name !== 'run_code')).toHaveLength(calls.length)
  }, 90_000)

  it('S11.5 ptc replay of a damaged journal prints generic cards and notes, and exits 0', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ptc-replay-e2e-'))
    dirs.push(root)
    const journal = join(root, 'old.jsonl')
    writeFileSync(
      journal,
      [
        JSON.stringify({ type: 'tool/call', seq: 1, callId: 'a', name: 'retired_tool', arguments: { path: 'x.ts' }, fromCode: false }),
        JSON.stringify({ type: 'tool/result', seq: 2, callId: 'a', name: 'bash', arguments: { command: 7 }, isError: false, value: 'old format', content: [{ type: 'text', text: 'ok' }] }),
        '[]',
        '{"type":"tool/result","seq":3,"na',
      ].join('\n'),
    )
    const replay = await ptc(['replay', journal], root)
    expect(replay.stdout).toBe(['… retired_tool {"path":"x.ts"}', '  at x.ts', '✓ bash {"command":7}', '  ok', '! journal line 3: not a record; skipped', '! journal line 4: not JSON (truncated?); skipped', ''].join('\n'))
    expect(replay.code).toBe(0)
  }, 30_000)

  it('S11.3 results a plugin tool renders are shown without content when the tool is not loaded, and stderr says which and to pass --tools', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ptc-replay-e2e-'))
    dirs.push(root)
    const journal = join(root, 'plugin.jsonl')
    const result = (seq: number) => JSON.stringify({ type: 'tool/result', seq, callId: `c${seq}`, name: 'add', arguments: { a: 1, b: 2 }, isError: false, value: 3, contentFrom: 'render' })
    writeFileSync(journal, [result(1), result(2), JSON.stringify({ type: 'tool/result', seq: 3, callId: 'c3', name: 'list_dir', arguments: { path: '.' }, isError: false, value: { path: '/w', entries: [], truncated: false }, contentFrom: 'render' })].join('\n'))
    const replay = await ptc(['replay', journal], root)
    expect(replay.code).toBe(0)
    expect(replay.stdout).toMatch(/^✓ add \{"a":1,"b":2\}\n✓ add/)
    // list_dir is a built-in: its content is rendered back; only add is named.
    expect(replay.stderr).toBe("ptc replay: results shown without their content, since their tool is not loaded: add (2). Pass the run's --tools to see it.\n")
  }, 30_000)

  it('ptc replay without a file, or with a missing file, is a usage error', async () => {
    const root = mkdtempSync(join(tmpdir(), 'ptc-replay-e2e-'))
    dirs.push(root)
    expect((await ptc(['replay'], root)).code).toBe(2)
    const missing = await ptc(['replay', join(root, 'nope.jsonl')], root)
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/nope\.jsonl/)
  }, 30_000)
})
