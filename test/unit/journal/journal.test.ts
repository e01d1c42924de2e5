import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import * as Journal from '../../../src/journal/journal.ts'
import { journalContent } from '../../../src/journal/rendered-content.ts'
import type { ToolResult } from '../../../src/tools/types.ts'
import { createRoot, echoTool, usePlugin } from '../../helpers/registry.ts'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ptc-journal-'))
})
afterEach(() => {
  vi.restoreAllMocks()
  rmSync(dir, { recursive: true, force: true })
})

const lines = (file: string) =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>)

async function setup(config: Journal.Config) {
  const root = await createRoot()
  await root.plugin(Journal, config)
  const live: ToolResult[] = []
  await usePlugin(root, (ctx) => {
    ctx.tools.register(echoTool())
    ctx.on('tools/result', (result) => void live.push(result))
  })
  return { root, live }
}

describe('journal', () => {
  it('writes tool/call and tool/result lines in order as JSONL', async () => {
    const file = join(dir, 'nested', 'session.jsonl')
    const { root } = await setup({ file })
    await root.tools.execute({ callId: 'a', name: 'echo', arguments: { text: 'one' } }, { agent: 's1' })
    await root.tools.execute({ callId: 'b', name: 'nope', arguments: {} }, { agent: 's1' })
    const records = lines(file)
    expect(records.map((record) => [record.seq, record.type, record.callId])).toEqual([
      [1, 'tool/call', 'a'],
      [2, 'tool/result', 'a'],
      [3, 'tool/call', 'b'],
      [4, 'tool/result', 'b'],
    ])
    expect(records[0]).toEqual({ type: 'tool/call', seq: 1, callId: 'a', name: 'echo', arguments: { text: 'one' }, agent: 's1', fromCode: false })
    expect(readFileSync(file, 'utf8').endsWith('\n')).toBe(true)
  })

  it('S6.4 the result line deep-equals the live frozen result observers saw (content rendered back from the value)', async () => {
    const file = join(dir, 'j.jsonl')
    const { root, live } = await setup({ file })
    const returned = await root.tools.execute({ name: 'echo', arguments: { text: 'same' } }, { agent: 's1' })
    const denied = await root.tools.execute({ name: 'echo', arguments: { text: 5 } }, { agent: 's1' })
    expect(live).toEqual([returned, denied])
    expect(live[0]).toBe(returned)
    const written = lines(file).filter((record) => record.type === 'tool/result')
    expect(written).toHaveLength(2)
    for (const [index, record] of written.entries()) {
      const { type: _type, seq: _seq, contentFrom, ...rest } = record
      // The rendered content is left out and comes back, exactly, from the tool's pure render (S1.2).
      const result = contentFrom === 'render' ? { ...rest, content: journalContent(root.tools.get('echo'), record) } : rest
      expect(result).toEqual(live[index])
      expect(Object.keys(result).sort()).toEqual(Object.keys(live[index]!).sort())
    }
    expect(written.map((record) => record.contentFrom)).toEqual(['render', undefined])
  })

  it('S11.3 a result whose content is over a record\'s 1 MiB is not rendered again to compare (its record is capped anyway)', async () => {
    const file = join(dir, 'j.jsonl')
    const { root } = await setup({ file })
    let renders = 0
    const echo = root.tools.get('echo')!
    const render = echo.output.render
    echo.output.render = (args, value) => (renders++, render(args, value))
    try {
      await root.tools.execute({ name: 'echo', arguments: { text: 'y'.repeat(2 * 2 ** 20) } })
      const rendersForTheResult = renders
      await root.tools.execute({ name: 'echo', arguments: { text: 'small' } })
      // The small result is rendered once more, by the journal's comparison; the large one was not.
      expect(renders).toBe(2 * rendersForTheResult + 1)
    } finally {
      echo.output.render = render
    }
    const [big, small] = lines(file).filter((record) => record.type === 'tool/result')
    expect(big).not.toHaveProperty('contentFrom')
    expect(small!.contentFrom).toBe('render')
  })

  it('issue 14: a result whose content is its value rendered is written without the content; other content is kept', async () => {
    const file = join(dir, 'j.jsonl')
    const { root } = await setup({ file })
    await usePlugin(root, (ctx) => {
      ctx.on('tools/post-execute', (execution, _pending, next) => ((execution.arguments as { text?: string }).text === 'replace' ? { kind: 'accept', content: [{ type: 'text', text: 'policy text' }] } : next()))
    })
    await root.tools.execute({ name: 'echo', arguments: { text: 'x'.repeat(10_000) } })
    await root.tools.execute({ name: 'echo', arguments: { text: 'replace' } })
    const [rendered, replaced] = lines(file).filter((record) => record.type === 'tool/result')
    expect(rendered).not.toHaveProperty('content')
    expect(rendered!.contentFrom).toBe('render')
    expect(JSON.stringify(rendered).split('x'.repeat(10_000)).length - 1).toBe(2) // the arguments and the value, not a third copy
    expect(replaced!.content).toEqual([{ type: 'text', text: 'policy text' }])
    expect(replaced).not.toHaveProperty('contentFrom')
    // Without the tool a reader cannot render it back, and says so with undefined instead of guessing.
    expect(journalContent(undefined, rendered!)).toBeUndefined()
  })

  it('a journal that cannot be written at start-up stops the start with a clear error (it is the audit record)', async () => {
    const file = join(dir, 'is-a-directory')
    mkdirSync(file)
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const root = await createRoot()
    await expect(root.plugin(Journal, { file })).rejects.toMatchObject({
      code: 'journal-unwritable',
      message: expect.stringMatching(/^Cannot write the journal .*is-a-directory: .*Name a writable file \(the journal option; --journal for ptc\)\.$/),
    })
  })

  it('a write failure after start is reported via journal/error and stderr, never thrown, and the call result is unaffected', async () => {
    const file = join(dir, 'becomes-a-directory')
    const stderr = vi.spyOn(console, 'error').mockImplementation(() => {})
    const failures: { file: string; record: string; error: unknown }[] = []
    const { root } = await setup({ file })
    rmSync(file)
    mkdirSync(file)
    await usePlugin(root, (ctx) => ctx.on('journal/error', (failure) => void failures.push(failure)), 'watcher', [])
    const result = await root.tools.execute({ callId: 'w', name: 'echo', arguments: { text: 'still works' } })
    expect(result).toMatchObject({ isError: false, value: { text: 'still works' } })
    expect(failures.map((failure) => JSON.parse(failure.record).type)).toEqual(['tool/call', 'tool/result'])
    expect(failures[0]!.file).toBe(file)
    expect((failures[0]!.error as NodeJS.ErrnoException).code).toBe('EISDIR')
    expect(stderr.mock.calls.some((call) => String(call[0]).includes(`journal: could not write to ${file}`))).toBe(true)
  })

  it('a throwing journal/error listener does not disturb the call either', async () => {
    const file = join(dir, 'dir')
    vi.spyOn(console, 'error').mockImplementation(() => {})
    const { root } = await setup({ file })
    rmSync(file)
    mkdirSync(file)
    await usePlugin(root, (ctx) => ctx.on('journal/error', () => { throw new Error('reporter crashed') }), 'watcher', [])
    expect((await root.tools.execute({ name: 'echo', arguments: { text: 'x' } })).isError).toBe(false)
  })

  it('the agent filter keeps one session per journal', async () => {
    const file = join(dir, 'mine.jsonl')
    const { root } = await setup({ file, agent: 'mine' })
    await root.tools.execute({ callId: 'm', name: 'echo', arguments: { text: 'a' } }, { agent: 'mine' })
    await root.tools.execute({ callId: 'o', name: 'echo', arguments: { text: 'b' } }, { agent: 'other' })
    await root.tools.execute({ callId: 'n', name: 'echo', arguments: { text: 'c' } })
    expect(lines(file).map((record) => record.callId)).toEqual(['m', 'm'])
  })

  it('the default path is under <workspace>/.ptc/journal and is created on first write', async () => {
    const path = Journal.journalPath({ workspace: dir })
    expect(path.startsWith(join(dir, '.ptc', 'journal'))).toBe(true)
    expect(path).toMatch(/\.jsonl$/)
    expect(Journal.journalPath({ file: 'rel.jsonl' })).toBe(join(process.cwd(), 'rel.jsonl'))
  })

  it('hostile content (a __proto__ key, unicode line separators) stays one line per record', async () => {
    const file = join(dir, 'hostile.jsonl')
    const { root } = await setup({ file })
    await root.tools.execute({ name: 'echo', arguments: JSON.parse('{"text": "a\\u2028b\\nc"}') })
    await root.tools.execute({ name: 'echo', arguments: JSON.parse('{"text": "a", "__proto__": {"x": 1}}') })
    const records = lines(file)
    expect(records).toHaveLength(4)
    expect(records[0]!.arguments).toEqual({ text: 'a\u2028b\nc' })
    // S6.1: arguments with a __proto__ key are refused (an object schema would drop it): recorded as refused, no prototype changed.
    expect(records[2]!.arguments).toBeNull()
    expect(JSON.stringify(records[3])).toContain('$.__proto__: a key named __proto__ cannot be passed')
    expect(({} as { x?: unknown }).x).toBeUndefined()
  })

  it('disposing the journal plugin stops writing', async () => {
    const file = join(dir, 'stop.jsonl')
    const root = await createRoot()
    const fiber = root.plugin(Journal, { file })
    await fiber
    await usePlugin(root, (ctx) => ctx.tools.register(echoTool()))
    await root.tools.execute({ name: 'echo', arguments: { text: 'a' } })
    await fiber.dispose()
    await root.tools.execute({ name: 'echo', arguments: { text: 'b' } })
    expect(lines(file)).toHaveLength(2)
  })
})

describe('journal record cap (S11.3)', () => {
  it('a record over 1 MiB keeps valid JSON with $omitted placeholders, and replay shows generic cards', async () => {
    const file = join(dir, 'big.jsonl')
    const { root } = await setup({ file })
    const big = 'x'.repeat(3 * 1024 * 1024)
    await root.tools.execute({ callId: 'big', name: 'echo', arguments: { text: big } }, { agent: 's1' })
    await root.tools.execute({ callId: 'small', name: 'echo', arguments: { text: 'hi' } }, { agent: 's1' })
    const text = readFileSync(file, 'utf8')
    const raw = text.split('\n').filter(Boolean)
    for (const line of raw) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(Journal.MAX_RECORD_BYTES)
    const records = raw.map((line) => JSON.parse(line) as Record<string, unknown>)
    expect(records.map((record) => [record.seq, record.type, record.callId])).toEqual([
      [1, 'tool/call', 'big'], [2, 'tool/result', 'big'], [3, 'tool/call', 'small'], [4, 'tool/result', 'small'],
    ])
    expect(records[0]!.arguments).toEqual({ $omitted: `${JSON.stringify({ text: big }).length} bytes` })
    expect(records[1]).toMatchObject({ name: 'echo', isError: false, arguments: { $omitted: expect.stringMatching(/ bytes$/) }, value: { $omitted: expect.stringMatching(/ bytes$/) } })
    expect(records[2]!.arguments).toEqual({ text: 'hi' })
    const { replayJournal } = await import('../../../src/present/replay.ts')
    const tool = root.tools.get('echo')
    const replayed = replayJournal(text, (name) => (name === 'echo' ? tool : undefined))
    expect(replayed).not.toContain(big.slice(0, 100))
    expect(replayed).not.toContain('could not be presented')
    expect(replayed.split('\n').filter(Boolean).length).toBeGreaterThanOrEqual(4)
  })

  it('a record whose other fields are huge too still fits (every field but the bookkeeping is omitted)', () => {
    const line = Journal.capRecord({ type: 'tool/result', seq: 1, callId: 'c', name: 'n', isError: true, error: { message: 'e'.repeat(2 * 1024 * 1024) }, value: 1 })
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(Journal.MAX_RECORD_BYTES)
    expect(JSON.parse(line)).toMatchObject({ type: 'tool/result', seq: 1, callId: 'c', name: 'n', isError: true, error: { $omitted: expect.any(String) } })
  })
  it('S11.3 a record within the cap is exactly its JSON.stringify; each payload is serialized once, and a frozen one found too big never again', () => {
    const small = { type: 'tool/call', seq: 1, callId: 'c', name: 'n', arguments: { a: [1, 'ü', null], __proto__x: true }, agent: undefined, fromCode: true }
    expect(Journal.capRecord(small)).toBe(JSON.stringify(small))
    let serialized = 0
    const huge = Object.freeze({ toJSON: () => (serialized++, 'y'.repeat(2 * 1024 * 1024)) })
    const call = JSON.parse(Journal.capRecord({ type: 'tool/call', seq: 1, callId: 'c', arguments: huge })) as Record<string, unknown>
    expect(call.arguments).toEqual({ $omitted: `${2 * 1024 * 1024 + 2} bytes` })
    expect(serialized).toBe(1)
    // The same call's result record carries the same frozen arguments: their size is remembered.
    const result = JSON.parse(Journal.capRecord({ type: 'tool/result', seq: 2, callId: 'c', arguments: huge, value: 1 })) as Record<string, unknown>
    // Only the field that does not fit is left out: the value, 1 byte, stays.
    expect(result).toEqual({ type: 'tool/result', seq: 2, callId: 'c', arguments: { $omitted: `${2 * 1024 * 1024 + 2} bytes` }, value: 1 })
    expect(serialized).toBe(1)
  })

  it('S8.1 an ask is journaled as a tool/approval record between the call and its result, with what the responder answered', async () => {
    const file = join(dir, 'asks.jsonl')
    const { root } = await setup({ file })
    await usePlugin(root, (ctx) => {
      ctx.on('tools/pre-execute', () => ({ kind: 'ask', reason: 'writes outside' }))
      ctx.on('approval/request', (request) => ((request.execution.arguments as { text: string }).text === 'yes' ? 'allowed-once' : 'denied'))
    }, 'asker')
    await root.tools.execute({ callId: 'y', name: 'echo', arguments: { text: 'yes' } }, { agent: 's1' })
    await root.tools.execute({ callId: 'n', name: 'echo', arguments: { text: 'no' } }, { agent: 's1' })
    const records = lines(file)
    expect(records.map((record) => [record.type, record.callId, record.outcome ?? record.isError ?? '-'])).toEqual([
      ['tool/call', 'y', '-'], ['tool/approval', 'y', 'allowed-once'], ['tool/result', 'y', false],
      ['tool/call', 'n', '-'], ['tool/approval', 'n', 'denied'], ['tool/result', 'n', true],
    ])
    expect(records[1]).toEqual({ type: 'tool/approval', seq: 2, callId: 'y', name: 'echo', agent: 's1', reason: 'writes outside', outcome: 'allowed-once' })
  })

  it('S8.2 a call stopped while it awaits approval is journaled as not answered (unavailable, stopped), never denied, before its cancelled result', async () => {
    const file = join(dir, 'stopped.jsonl')
    const { root } = await setup({ file })
    let asked!: () => void
    await usePlugin(root, (ctx) => {
      ctx.on('tools/pre-execute', () => ({ kind: 'ask', reason: 'writes outside' }))
      // As the terminal and MCP responders did: the call's stop ends the prompt with 'denied'; 'never'
      // stands for a responder that ignores the stop and never answers.
      ctx.on('approval/request', (request) => {
        asked()
        const { callerSignal, arguments: args } = request.execution
        return new Promise<'denied'>((resolve) => {
          if ((args as { text: string }).text !== 'never') callerSignal.addEventListener('abort', () => resolve('denied'))
        })
      })
    }, 'asker')
    for (const text of ['stop', 'never']) {
      const stop = new AbortController()
      const waiting = new Promise<void>((resolve) => (asked = resolve))
      const pending = root.tools.execute({ callId: text, name: 'echo', arguments: { text } }, { agent: 's1', signal: stop.signal })
      await waiting
      stop.abort()
      expect((await pending).error?.kind).toBe('cancelled')
    }
    const records = lines(file)
    expect(records.map((record) => [record.type, record.callId, record.outcome ?? (record.error as { kind?: string } | undefined)?.kind ?? '-'])).toEqual([
      ['tool/call', 'stop', '-'], ['tool/approval', 'stop', 'unavailable'], ['tool/result', 'stop', 'cancelled'],
      ['tool/call', 'never', '-'], ['tool/approval', 'never', 'unavailable'], ['tool/result', 'never', 'cancelled'],
    ])
    expect(records[1]).toEqual({ type: 'tool/approval', seq: 2, callId: 'stop', name: 'echo', agent: 's1', reason: 'writes outside', outcome: 'unavailable', stopped: true })
  })
})
