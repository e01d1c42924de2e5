/**
 * `ptc serve` applies the default journal retention (issue 14 item 4: 380 MCP sessions left 141 MB
 * of journals, never cleaned): a session opening its journal leaves the newest 100 in
 * `.ptc/journal`, its own included, and the oldest are gone.
 */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { stdioClient } from './serve-helpers.ts'

let workspace: string
beforeAll(() => {
  workspace = mkdtempSync(join(tmpdir(), 'ptc-serve-retention-'))
})
afterAll(() => rmSync(workspace, { recursive: true, force: true }))

describe('ptc serve journal retention (issue 14 item 4)', { timeout: 120_000 }, () => {
  it('a new session prunes .ptc/journal to the newest 100 journals, keeping its own', async () => {
    const dir = join(workspace, '.ptc', 'journal')
    mkdirSync(dir, { recursive: true })
    for (let i = 0; i < 120; i++) {
      const file = join(dir, `2020-01-01T00-${String(Math.floor(i / 60)).padStart(2, '0')}-${String(i % 60).padStart(2, '0')}-000Z-mcp-old-${i}.jsonl`)
      writeFileSync(file, '{}\n')
      const when = new Date(Date.UTC(2020, 0, 1, 0, 0, i))
      utimesSync(file, when, when)
    }
    const client = await stdioClient(['--workspace', workspace, '--builtins', 'none', '--checkers', '1'])
    try {
      await client.listTools()
      const left = readdirSync(dir)
      expect(left).toHaveLength(100)
      const own = left.filter((name) => !name.includes('-mcp-old-'))
      expect(own).toHaveLength(1)
      // The 21 oldest went (0..20), the newest 99 old ones stayed.
      expect(left.some((name) => name.endsWith('-mcp-old-20.jsonl'))).toBe(false)
      expect(left.some((name) => name.endsWith('-mcp-old-21.jsonl'))).toBe(true)
    } finally {
      await client.close()
    }
  })
})
