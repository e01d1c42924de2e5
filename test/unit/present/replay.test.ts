import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Context } from 'cordis'
import { z } from 'zod'
import { afterEach, describe, expect, it, vi } from 'vitest'
import * as jobTools from '../../../src/jobs/job-tools.ts'
import { Jobs } from '../../../src/jobs/jobs.ts'
import * as journal from '../../../src/journal/journal.ts'
import { formatCard } from '../../../src/present/format-card.ts'
import { genericCall, genericResult, presentCallCard, presentResultCard } from '../../../src/present/present.ts'
import { callCardText, countJournalRecords, replayJournal, resultCardText, type ToolLookup } from '../../../src/present/replay.ts'
import { defineTool } from '../../../src/tools/define-tool.ts'
import type { ToolResult } from '../../../src/tools/types.ts'
import { createRoot, echoTool } from '../../helpers/registry.ts'

/** A tool with its own cards on both phases. */
const shellLike = defineTool({
  name: 'shell_like',
  description: 'Pretend to run a command.',
  parameters: z.strictObject({ command: z.string() }),
  output: { schema: z.object({ exitCode: z.number().int(), output: z.string() }), render: (_args, value) => [{ type: 'text', text: value.output }] },
  execute: (args) => ({ exitCode: args.command === 'false' ? 1 : 0, output: `ran ${args.command}\n` }),
  presentCall: (args) => ({ card: 'terminal', phase: 'pending', command: args.command }),
  presentResult: (args, result) => {
    const value = result.value as { exitCode: number; output: string }
    return { card: 'terminal', phase: 'completed', command: args.command, output: value.output, exitCode: value.exitCode, signal: null }
  },
})

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  vi.restoreAllMocks()
})

/** Runs a small session with the journal on and the live card printing of `ptc run`; returns both. */
async function session() {
  const dir = mkdtempSync(join(tmpdir(), 'ptc-replay-'))
  dirs.push(dir)
  const file = join(dir, 'journal.jsonl')
  const root = await createRoot()
  await root.plugin(Jobs)
  await root.plugin(jobTools)
  await root.plugin({ name: 'tools', inject: ['tools'], apply: (ctx: Context) => { ctx.tools.register(echoTool()); ctx.tools.register(shellLike) } })
  await root.plugin(journal, { file })
  let live = ''
  const tools: ToolLookup = (name) => root.tools.get(name)
  root.on('tool/call', (call) => (live += callCardText(tools, call)))
  root.on('tools/result', (result) => (live += resultCardText(tools, result)))
  const call = (name: string, args: unknown) => root.tools.execute({ name, arguments: args }, { agent: 'cli' })
  await call('echo', { text: 'hello' })
  await call('shell_like', { command: 'ls -la' })
  await call('shell_like', { command: 'false' })
  await call('nope', { x: 1 })
  await call('echo', { text: 42 })
  await call('job_list', {})
  await call('job_read', { jobId: 'bash-1' })
  await call('run_code', { code: 'return 1' })
  return { root, tools, live, journalText: readFileSync(file, 'utf8') }
}

describe('replayJournal (S11.3, S11.5)', () => {
  it('S11.3 a replay of the journal prints exactly the cards the live run printed, in order', async () => {
    const { tools, live, journalText } = await session()
    expect(live).toContain('$ ls -la')
    expect(replayJournal(journalText, tools)).toBe(live)
  })

  it('S11.3 a result journaled without its content (contentFrom: render) replays the generic card the live run printed', async () => {
    const { tools, live, journalText } = await session()
    const echoed = journalText.split('\n').filter(Boolean).map((line) => JSON.parse(line)).find((record) => record.type === 'tool/result' && record.name === 'echo' && !record.isError)
    expect(echoed).toMatchObject({ contentFrom: 'render', value: { text: 'hello' } })
    expect(echoed).not.toHaveProperty('content')
    expect(live).toContain('hello')
    expect(resultCardText(tools, echoed)).toBe(resultCardText(tools, { ...echoed, contentFrom: undefined, content: [{ type: 'text', text: 'hello' }] }))
  })

  it('S11.3 the live card text is formatCard(presentCallCard/presentResultCard) of the event', async () => {
    const { root, tools } = await session()
    const tool = root.tools.get('shell_like')!
    const result = await root.tools.execute({ name: 'shell_like', arguments: { command: 'pwd' } })
    expect(callCardText(tools, { name: 'shell_like', arguments: { command: 'pwd' } })).toBe(`${formatCard(presentCallCard(tool, { command: 'pwd' }, 'shell_like'))}\n`)
    expect(resultCardText(tools, result)).toBe(`${formatCard(presentResultCard(tool, result.arguments, result))}\n`)
    expect(resultCardText(tools, { ...result, name: 'run_code' })).toBe('')
  })

  it('S11.3 replay is pure: no clock, no randomness', async () => {
    const { tools, live, journalText } = await session()
    const boom = () => {
      throw new Error('impure')
    }
    vi.spyOn(Date, 'now').mockImplementation(boom)
    vi.spyOn(Math, 'random').mockImplementation(boom)
    vi.spyOn(performance, 'now').mockImplementation(boom)
    expect(replayJournal(journalText, tools)).toBe(live)
  })

  it('S11.5 unknown tools and malformed values fall back to generic cards', () => {
    const tools: ToolLookup = (name) => (name === 'shell_like' ? shellLike : undefined)
    const call = JSON.stringify({ type: 'tool/call', seq: 1, callId: 'c', name: 'gone_tool', arguments: { path: 'a.ts' }, fromCode: false })
    const bad: Record<string, unknown> = { type: 'tool/result', seq: 2, callId: 'c', name: 'shell_like', arguments: { command: 3 }, isError: false, value: 'not an object', content: [{ type: 'text', text: 'hi' }], durationMs: 1 }
    const out = replayJournal(`${call}\n${JSON.stringify(bad)}\n`, tools)
    const { type: _t, seq: _s, ...result } = bad
    expect(out).toBe(`${formatCard(genericCall('gone_tool', { path: 'a.ts' }))}\n${formatCard(genericResult(shellLike, { command: 3 }, result as unknown as ToolResult))}\n`)
    expect(out).toContain('✓ shell_like {"command":3}')
  })

  it('S11.5 a truncated last line, garbage and non-object lines become notes; other record types are skipped', async () => {
    const { tools, live, journalText } = await session()
    const lines = journalText.trimEnd().split('\n')
    const last = lines.at(-1)!
    const broken = [...lines.slice(0, -1), '{"type":"permission/preset","seq":99}', '[1,2]', '42', 'null', '', last.slice(0, 20)].join('\n')
    const out = replayJournal(broken, tools)
    expect(out.startsWith(replayJournal(lines.slice(0, -1).join('\n'), tools))).toBe(true)
    expect(out).toContain(`! journal line ${lines.length + 1}: not a record; skipped`)
    expect(out).toMatch(/! journal line \d+: not JSON \(truncated\?\); skipped\n$/)
    expect(live.length).toBeGreaterThan(0)
    expect(replayJournal('', tools)).toBe('')
    expect(replayJournal(undefined as never, tools)).toBe('')
  })

  it('S11.5 a throwing tool lookup means generic cards', () => {
    const out = replayJournal(JSON.stringify({ type: 'tool/call', name: 'x', arguments: {} }), () => {
      throw new Error('lookup failed')
    })
    expect(out).toBe('… x\n')
  })
})

/** mulberry32: a small deterministic PRNG, so the fuzz corpus is the same on every run. */
function prng(seed: number) {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

describe('replay fuzz (S11.5)', () => {
  it('S11.5 500 mutated journals (missing fields, wrong types, unknown tools, non-object lines, truncation, huge numbers, __proto__ keys) replay without throwing, deterministically', async () => {
    const { tools, journalText } = await session()
    const random = prng(0x5eed)
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!
    const strange: unknown[] = [null, 0, -1, 1e308, -1e308, 2 ** 53 + 1, '', 'x'.repeat(5000), [], [1, 'a', null], {}, { __proto__: { polluted: true } }, true, { card: 'terminal' }, 'SIGKILL', [[[[[[[[]]]]]]]]]
    const names = ['echo', 'shell_like', 'job_read', 'job_list', 'job_kill', 'run_code', 'nope', '__proto__', 'constructor', 'toString', '', 'hasOwnProperty']
    const fields = ['type', 'seq', 'callId', 'name', 'arguments', 'agent', 'isError', 'value', 'content', 'error', 'presentationMeta', 'durationMs', 'fromCode']
    const base = journalText.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>)
    const mutateRecord = (record: Record<string, unknown>): string => {
      const copy: Record<string, unknown> = structuredClone(record)
      for (let n = 1 + Math.floor(random() * 3); n > 0; n--) {
        const roll = random()
        if (roll < 0.2) delete copy[pick(fields)]
        else if (roll < 0.45) copy[pick(fields)] = pick(strange)
        else if (roll < 0.6) copy.name = pick(names)
        else if (roll < 0.7) copy.arguments = pick([...strange, { command: pick(strange) }, { jobId: pick(strange) }, { text: pick(strange) }])
        else if (roll < 0.8) copy.value = pick([...strange, { status: 'running', output: pick(strange) }, { kind: 'background', jobId: pick(strange) }])
        else if (roll < 0.88) copy.content = pick([[{ type: 'text', text: pick(strange) }], [{ type: pick(strange) }], [null], 'text'])
        else {
          // A literal "__proto__" key in the JSON text (JSON.parse makes it an own property).
          return JSON.stringify(copy).replace(/^\{/, `{"__proto__":${JSON.stringify(pick(strange)) ?? 'null'},`)
        }
      }
      return JSON.stringify(copy)
    }
    let cards = 0
    for (let journalIndex = 0; journalIndex < 500; journalIndex++) {
      const lines: string[] = []
      for (const record of base) {
        const roll = random()
        if (roll < 0.5) lines.push(mutateRecord(record))
        else if (roll < 0.55) lines.push(pick(['[1,2]', '"text"', '42', 'null', 'true', '{', '}{', '\u0000', 'NaN']))
        else if (roll < 0.6) continue
        else lines.push(JSON.stringify(record))
      }
      if (random() < 0.3 && lines.length) {
        const last = lines.pop()!
        lines.push(last.slice(0, Math.floor(random() * last.length)))
      }
      if (random() < 0.1) lines.reverse()
      const text = lines.join(random() < 0.5 ? '\n' : '\r\n')
      let out = ''
      expect(() => (out = replayJournal(text, tools))).not.toThrow()
      expect(typeof out).toBe('string')
      expect(replayJournal(text, tools)).toBe(out)
      expect(({} as Record<string, unknown>).polluted).toBeUndefined()
      cards += out.split('\n').length
    }
    expect(cards).toBeGreaterThan(500)
  })
})

describe('countJournalRecords (S11.3)', () => {
  it('counts the lines that are journal records, so a file that is not a journal can be told apart', () => {
    expect(countJournalRecords('')).toEqual({ lines: 0, records: 0 })
    expect(countJournalRecords('hello\nworld\n')).toEqual({ lines: 2, records: 0 })
    // JSON, but not records the journal writes (no type and seq).
    expect(countJournalRecords('{"name":"ptc-runner","version":"1.0.0"}\n[1,2]\n')).toEqual({ lines: 2, records: 0 })
    expect(countJournalRecords('{"type":"tool/call","seq":1,"name":"x"}\n{"type":"tool/res')).toEqual({ lines: 2, records: 1 })
  })
})
