/**
 * The `run_code` description as `ptc serve` lists it (issue 11 "What to build" 2 and 5, S9.1):
 * every tool and property description of the callable tools whole (not cut to its first
 * sentence, which stays an explicit option), and the warnings a model should expect.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createHost, type Host } from '../../../src/host/create-host.ts'
import { mcpToolList } from '../../../src/server/exposed-tools.ts'

let workspace: string
let host: Host
beforeAll(async () => {
  workspace = mkdtempSync(join(tmpdir(), 'ptc-description-'))
  host = await createHost({ workspace, journal: false, builtins: ['fs'], ptc: { isolation: 'inline', poolSize: 1 } })
}, 60_000)
afterAll(async () => {
  await host?.dispose()
  rmSync(workspace, { recursive: true, force: true })
})

/**
 * Text compared as words: comment markers and the escape that keeps `*\/` from closing a doc
 * comment dropped (every `*`, `/` and backslash), single spaces.
 */
const words = (text: string) => text.replace(/[*/\\]/g, ' ').replace(/\s+/g, ' ').trim()

describe('run_code description as served (issue 11)', () => {
  it('S9.1 keeps every tool description and every property description of the callable tools whole', async () => {
    const runCode = host.ctx.tools.get('run_code')!
    const [listed] = mcpToolList(host.ctx.tools, [runCode], await host.ctx.ptc.declarations({ embedded: true }))
    const served = words(listed!.description ?? '')
    const tools = host.ctx.tools.list().filter((tool) => tool.name !== 'run_code')
    expect(tools.length).toBeGreaterThan(3)
    let multiSentence = 0
    for (const tool of tools) {
      expect(served).toContain(words(tool.description))
      if (/[.!?] \S/.test(tool.description)) multiSentence++
      const shape = (z.toJSONSchema(tool.parameters as z.ZodType, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, { description?: string }> }).properties ?? {}
      for (const [key, property] of Object.entries(shape)) if (property.description !== undefined) expect(served, `${tool.name}.${key}`).toContain(words(property.description))
    }
    // The check means something: some of these descriptions have more than one sentence.
    expect(multiSentence).toBeGreaterThan(0)
    const compact = words(await host.ctx.ptc.declarations({ embedded: true, compact: true }))
    expect(tools.some((tool) => !compact.includes(words(tool.description)))).toBe(true)
  })

  it('S9.3 tells the model what comes back as warnings: calls unfinished at return and unhandled rejections (after a rejected Promise.all, use Promise.allSettled)', () => {
    const description = host.ctx.tools.get('run_code')!.description
    expect(description).toContain('Await every call: calls unfinished at return and unhandled rejections come back as warnings (after a rejected Promise.all, use Promise.allSettled).')
  })

  it('S7.2 says which calls from a Promise.all overlap: those of concurrency-safe tools', () => {
    expect(host.ctx.tools.get('run_code')!.description).toContain('Fan out with Promise.all (concurrency-safe tools overlap)')
  })
})
