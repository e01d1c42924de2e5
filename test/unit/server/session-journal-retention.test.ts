/**
 * `ptc serve` applies the host's journal retention (issue 14 item 4: 380 MCP sessions left 141 MB
 * of journals): each session opening its journal prunes the oldest ones past the limit, and never
 * the journal of a session still open.
 */
import { mkdirSync, mkdtempSync, readdirSync, realpathSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createHost, type Host } from '../../../src/host/create-host.ts'
import { connectSession, type SessionClient } from '../../helpers/mcp-session-client.ts'

let host: Host
let workspace: string
beforeAll(async () => {
  workspace = realpathSync(mkdtempSync(join(tmpdir(), 'ptc-serve-retention-')))
  host = await createHost({ workspace, builtins: 'none', journal: false, journalRetention: { maxFiles: 2 } })
}, 60_000)
afterAll(async () => {
  await host.dispose()
  rmSync(workspace, { recursive: true, force: true })
})

describe('session journals under retention (issue 14 item 4)', { timeout: 60_000 }, () => {
  it('each new session prunes the oldest journals, but never one of a session still open', async () => {
    const dir = host.journalDir!
    expect(dir).toBe(join(workspace, '.ptc', 'journal'))
    mkdirSync(dir, { recursive: true })
    for (let i = 0; i < 4; i++) {
      const file = join(dir, `2020-01-01T00-00-0${i}-000Z-mcp-old${i}.jsonl`)
      writeFileSync(file, '{}\n')
      utimesSync(file, new Date(Date.UTC(2020, 0, 1, 0, 0, i)), new Date(Date.UTC(2020, 0, 1, 0, 0, i)))
    }
    const options = { journalDir: dir, journalRetention: host.journalRetention }
    const open: SessionClient[] = []
    for (let i = 0; i < 3; i++) open.push(await connectSession(host, options, `live-${i}`))
    // Three live sessions, limit two: every old journal is gone, no live one is.
    const live = readdirSync(dir).sort()
    expect(live).toHaveLength(3)
    expect(live.every((name) => /-mcp-live-\d\.jsonl$/.test(name))).toBe(true)
    for (const session of open.splice(0)) await session.close()
    const next = await connectSession(host, options, 'next')
    const left = readdirSync(dir)
    expect(left).toHaveLength(2)
    expect(left.some((name) => name.endsWith('-mcp-next.jsonl'))).toBe(true)
    await next.close()
  })
})
