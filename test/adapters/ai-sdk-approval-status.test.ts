/**
 * `registerAiSdkTools` fails closed on approval statuses it does not know (SPEC S8.2): `ai` 7
 * runs a call whose status is a typo ('user_approval') without asking; ptc refuses such a status
 * at registration, and denies a call whose approval function returns one.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { tool, type ToolSet } from 'ai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createCodeTool, registerAiSdkTools } from '../../src/adapters/ai/index.ts'
import { createHost, type Host, type RunCodeValue } from '../../src/index.ts'

const ACCEPTED = `'not-applicable', 'approved', 'denied', 'user-approval'`

describe('registerAiSdkTools with an unknown approval status (S8.2 fail closed)', { timeout: 60_000 }, () => {
  let host: Host
  const ran: string[] = []
  const asked: string[] = []
  const toolSet = (): ToolSet => ({
    f: tool({ description: 'Needs approval.', inputSchema: z.object({}), needsApproval: true, execute: async () => (ran.push('f'), 'ran f') }),
    g: tool({ description: 'Plain.', inputSchema: z.object({}), execute: async () => (ran.push('g'), 'ran g') }),
  })
  /** Runs `tools.<name>({})` in a script; the value, or the ToolCallError's message. */
  const callFromScript = async (name: string) => {
    const code = `try { return await tools.${name}({}) } catch (error) { return error instanceof ToolCallError ? 'ToolCallError: ' + error.message : 'other: ' + String(error) }`
    const value = (await createCodeTool({ host }).execute!({ code }, { toolCallId: `c-${name}`, messages: [], context: undefined })) as RunCodeValue
    expect(value.status).toBe('ok')
    return value.value
  }

  beforeAll(async () => {
    host = await createHost({ workspace: mkdtempSync(join(tmpdir(), 'ptc-ai-status-')), journal: false })
    // Any question reaching the approval service is answered yes: a denial below comes from the status, not from headless S5.3.
    host.ctx.approval.respond((request) => (asked.push(request.execution.name), 'allowed-once'))
  }, 60_000)
  afterAll(async () => {
    await host?.dispose()
  })

  it('S8.2 a toolApproval entry with an unknown status is refused at registration, naming the tool, the value and the accepted values', async () => {
    for (const bad of ['bogus', 'user_approval', { type: 'user_approval' }, true, 0]) {
      const registering = registerAiSdkTools(host, toolSet(), { toolApproval: { f: bad as never } })
      await expect(registering).rejects.toThrow(TypeError)
      await expect(registering).rejects.toThrow(`registerAiSdkTools: options.toolApproval.f is ${JSON.stringify(bad)}, not an approval status`)
      await expect(registering).rejects.toThrow(ACCEPTED)
      expect(host.ctx.tools.get('f')).toBeUndefined()
    }
  })

  it('S8.2 a toolApproval that is neither a function nor an object of per-tool statuses is refused at registration', async () => {
    await expect(registerAiSdkTools(host, toolSet(), { toolApproval: 'user-approval' as never })).rejects.toThrow(
      'registerAiSdkTools: options.toolApproval takes a function or an object of per-tool statuses',
    )
    expect(host.ctx.tools.get('g')).toBeUndefined()
  })

  it('S8.2 every status ai 7 defines is accepted, as a string, as { type, reason }, absent, or as a function', async () => {
    const registered = await registerAiSdkTools(host, toolSet(), { toolApproval: { f: { type: 'user-approval', reason: 'f is risky' }, g: () => 'approved' } })
    await registered.dispose()
    for (const status of ['not-applicable', 'approved', 'denied', 'user-approval', { type: 'denied', reason: 'no' }, undefined, null]) {
      const again = await registerAiSdkTools(host, toolSet(), { toolApproval: { f: status as never } })
      await again.dispose()
    }
  })

  it('S8.2 a toolApproval function returning an unknown status denies the call, saying the status was not recognised', async () => {
    for (const returned of ['user_approval', { type: 'bogus' }, null, 42]) {
      const registered = await registerAiSdkTools(host, toolSet(), { toolApproval: () => returned as never })
      try {
        ran.length = 0
        expect(await callFromScript('g')).toMatch(new RegExp(`^ToolCallError: .*approval status ${escape(JSON.stringify(returned))} .*was not recognised.*denied`, 's'))
        expect(ran).toEqual([])
      } finally {
        await registered.dispose()
      }
    }
  })

  it('S8.2 a per-tool approval function returning an unknown status denies the call, even for a needsApproval tool', async () => {
    const registered = await registerAiSdkTools(host, toolSet(), { toolApproval: { f: () => 'bogus' as never } })
    try {
      ran.length = 0
      expect(await callFromScript('f')).toMatch(/^ToolCallError: .*approval status "bogus" for f was not recognised/s)
      expect(ran).toEqual([])
    } finally {
      await registered.dispose()
    }
  })

  it('S8.2 a static entry changed to an unknown status after registration denies the call', async () => {
    const toolApproval: Record<string, unknown> = { g: 'approved' }
    const registered = await registerAiSdkTools(host, toolSet(), { toolApproval: toolApproval as never })
    try {
      toolApproval.g = 'aproved'
      ran.length = 0
      expect(await callFromScript('g')).toMatch(/was not recognised/)
      expect(ran).toEqual([])
    } finally {
      await registered.dispose()
    }
  })

  it('S8.2 a needsApproval function returning a truthy non-boolean asks, as ai 7 does (not only true)', async () => {
    const registered = await registerAiSdkTools(host, {
      h: tool({ description: 'Loosely typed rule.', inputSchema: z.object({}), needsApproval: (() => 'yes') as never, execute: async () => (ran.push('h'), 'ran h') }),
    })
    try {
      asked.length = 0
      expect(await callFromScript('h')).toBe('ran h')
      expect(asked).toEqual(['h'])
    } finally {
      await registered.dispose()
    }
  })
})

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
