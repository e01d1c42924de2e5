/**
 * `host.dispose()` waits for the calls still finishing (S11.1, issue 14): a run cancelled while a
 * call from its script is in flight (Ctrl-C during `ptc run`) ends that call a moment later, and
 * its `tool/result` still reaches the journal before the host stops, instead of the journal
 * keeping only its `tool/call`. The default isolation (the worker process), as `ptc run` uses;
 * the tool's 200 ms clean-up is a tenth of the 2 s the drain allows.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { createHost } from '../../../src/host/create-host.ts'
import { stoppableTool } from '../../helpers/stoppable-tool.ts'

const workspace = mkdtempSync(join(tmpdir(), 'ptc-dispose-drain-'))
afterAll(() => rmSync(workspace, { recursive: true, force: true }))

describe('host.dispose waits for calls still finishing (S11.1)', { timeout: 60_000 }, () => {
  it('S11.1 a call from code cancelled with its run has its tool/result journaled before dispose ends', async () => {
    const journal = join(workspace, 'j.jsonl')
    const host = await createHost({ workspace, journal, builtins: 'none' })
    const { tool, running } = stoppableTool('slow', 200)
    host.ctx.tools.register(tool)
    const stop = new AbortController()
    const run = host.ctx.tools.execute({ name: 'run_code', arguments: { code: 'await tools.slow({}); return 1', typecheck: false } }, { agent: 'cli', signal: stop.signal })
    await running
    stop.abort()
    expect((await run).isError).toBe(true)
    await host.dispose()
    const records = readFileSync(journal, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { type: string; name?: string })
    const slow = records.filter((record) => record.name === 'slow').map((record) => record.type)
    expect(slow).toEqual(['tool/call', 'tool/result'])
  })
})
