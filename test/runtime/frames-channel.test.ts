/**
 * A worker process's channel (the isolate worker's and a checker's; issue 12, SPEC S9.1): JSON
 * frames over a socket on the worker's fd 3 (`src/ptc/json-frames.ts`, `startWorker`). Messages arrive whole and
 * in order whatever their size; a worker that writes what cannot be read is stopped and says so;
 * a worker whose host is gone ends itself.
 */
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { cpuSince, threadCpu } from '../../bench/thread-cpu.ts'
import { IsolateSupervisor } from '../../src/ptc/isolate/isolate-supervisor.ts'
import { dropV8OomReports } from '../../src/ptc/isolate/v8-oom-report.ts'
import { startWorker } from '../../src/ptc/worker-channel.ts'

const ECHO_ENTRY = fileURLToPath(new URL('../fixtures/frames-echo-entry.ts', import.meta.url))
const PARENT = fileURLToPath(new URL('../fixtures/isolate-worker-parent.ts', import.meta.url))
const STDERR_ENTRY = fileURLToPath(new URL('../fixtures/stderr-writer-entry.ts', import.meta.url))
const THREAD_NULL_ENTRY = fileURLToPath(new URL('../fixtures/thread-null-entry.ts', import.meta.url))

/** Starts the echo worker; `heard` collects its messages, `exited` resolves with how it ended. */
function startEcho() {
  const heard: unknown[] = []
  const { promise: exited, resolve: onExit } = Promise.withResolvers<string>()
  const listeners = new Set<() => void>()
  const channel = startWorker<unknown, unknown>({
    kind: 'process',
    entry: ECHO_ENTRY,
    onMessage: (message) => {
      heard.push(message)
      for (const listener of listeners) listener()
    },
    onExit,
  })
  const heardAtLeast = (count: number) =>
    new Promise<void>((resolve) => {
      const check = () => heard.length >= count && (listeners.delete(check), resolve())
      listeners.add(check)
      check()
    })
  return { channel, heard, exited, heardAtLeast }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

describe('the isolate worker channel (issue 12, S9.1)', () => {
  it('S9.1 a 2 MB message and 200 small ones cross both ways whole and in order', async () => {
    const echo = startEcho()
    await echo.heardAtLeast(1)
    const big = { type: 'big', text: JSON.stringify(Array.from({ length: 40_000 }, (_, i) => ({ i, s: `é"${i}` }))) }
    const sent = [big, ...Array.from({ length: 200 }, (_, i) => ({ type: 'small', i, argsJson: `{"i":${i}}` }))]
    for (const message of sent) expect(echo.channel.send(message)).toBe(true)
    await echo.heardAtLeast(1 + sent.length)
    expect(echo.heard).toEqual([{ type: 'ready' }, ...sent.map((message) => ({ echo: message }))])
    echo.channel.kill()
    await echo.exited
  })

  it('S9.1 a worker whose frame reads but is no message its owner can handle is stopped; the host goes on', async () => {
    const heard: unknown[] = []
    const { promise: exited, resolve: onExit } = Promise.withResolvers<string>()
    const channel = startWorker<unknown, { type?: string } | null>({
      kind: 'process',
      entry: ECHO_ENTRY,
        onMessage: (message) => void heard.push(message!.type), // throws for `null`
      onExit,
    })
    while (heard.length === 0) await new Promise((resolve) => setTimeout(resolve, 10))
    channel.send({ type: 'null' })
    expect(await exited).toMatch(/^it sent a message that could not be read \(its message could not be handled: .*null.*\), so it was stopped$/)
  })

  it('S9.1 from a worker thread too (the inline checker), a message its owner cannot handle stops the worker; the host goes on', async () => {
    const heard: unknown[] = []
    const { promise: exited, resolve: onExit } = Promise.withResolvers<string>()
    const channel = startWorker<unknown, { type?: string } | null>({
      kind: 'thread',
      entry: THREAD_NULL_ENTRY,
      onMessage: (message) => void heard.push(message!.type), // throws for `null`
      onExit,
    })
    while (heard.length === 0) await new Promise((resolve) => setTimeout(resolve, 10))
    channel.send({ type: 'null' })
    expect(await exited).toMatch(/^it sent a message that could not be read \(its message could not be handled: .*null.*\), so it was stopped$/)
    expect(heard).toEqual(['ready'])
  }, 15_000)

  it('S9.1 a worker that writes a frame that cannot be read is stopped, and its exit says why; sends then fail', async () => {
    const echo = startEcho()
    await echo.heardAtLeast(1)
    echo.channel.send({ type: 'bad' })
    expect(await echo.exited).toMatch(/^it sent a message that could not be read \(a frame is not JSON .*\), so it was stopped$/)
    expect(echo.channel.send({ type: 'late' })).toBe(false)
  })

  it('S9.1 a return value crosses as its JSON text, parsed once by the host: 8,000 nested arrays arrive whole, a __proto__ key stays own data', async () => {
    const supervisor = new IsolateSupervisor({ poolSize: 1 })
    const dispatch = async () => ({ ok: true as const, valueJson: 'null' })
    try {
      const deep = await supervisor.run({ js: 'let a = []\nfor (let i = 0; i < 8000; i++) a = [a]\nreturn a', toolNames: [], dispatch })
      expect(deep.status).toBe('ok')
      expect(deep.valueJson).toBeUndefined()
      let depth = 0
      for (let value = deep.value; Array.isArray(value) && value.length > 0; value = value[0]) depth++
      expect(depth).toBe(8000)
      const proto = await supervisor.run({ js: `return JSON.parse('{"__proto__": {"x": "${'y'.repeat(600)}"}}')`, toolNames: [], dispatch })
      expect(Object.hasOwn(proto.value as object, '__proto__')).toBe(true)
      expect(Object.getPrototypeOf(proto.value)).toBe(Object.prototype)
    } finally {
      supervisor.dispose()
    }
  })

  for (const held of [false, true]) {
    it(`S9.1 an isolate worker whose host process was SIGKILLed ends itself${held ? ', also while an endless step holds its main thread (its watchdog sees the host gone)' : ''}`, async () => {
      const parent = spawn(process.execPath, [PARENT, ...(held ? ['held'] : [])], { stdio: ['ignore', 'pipe', 'inherit'] })
      let out = ''
      parent.stdout.setEncoding('utf8')
      const ready = new Promise<number[]>((resolve) =>
        parent.stdout.on('data', (chunk: string) => {
          out += chunk
          const pids = /ready ([\d,]+)\n/.exec(out)?.[1]
          if (pids !== undefined) resolve(pids.split(',').map(Number))
        }),
      )
      const workers = await ready
      expect(workers.every(alive)).toBe(true)
      if (held && threadCpu(workers[0]!).main > 0) {
        // The endless step is held: one worker's main thread is busy (Linux: /proc).
        const before = workers.map(threadCpu)
        await new Promise((resolve) => setTimeout(resolve, 300))
        expect(Math.max(...workers.map((pid, index) => cpuSince(before[index]!, threadCpu(pid)).main))).toBeGreaterThan(50)
      }
      parent.kill('SIGKILL')
      await once(parent, 'exit')
      // The worker sees its socket end (or, holding a step, its watchdog the host gone) and SIGKILLs
      // itself; give it up to 10 s on a loaded machine (the held step's CPU limit is 120 s).
      for (let polls = 0; polls < 500 && workers.some(alive); polls++) await new Promise((resolve) => setTimeout(resolve, 20))
      expect(workers.filter(alive)).toEqual([])
    }, 60_000)
  }
})

describe("a worker process's stderr (S9.1)", () => {
  it('S9.1 reaches this process whole through a filter, characters cut between pipe chunks included, with V8\'s out-of-memory report dropped; the exit report keeps all', async () => {
    const written: string[] = []
    const write = process.stderr.write.bind(process.stderr)
    process.stderr.write = ((chunk: string | Uint8Array) => (written.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8')), true)) as typeof process.stderr.write
    try {
      const { promise: exited, resolve } = Promise.withResolvers<string>()
      startWorker<unknown, unknown>({ kind: 'process', entry: STDERR_ENTRY, onMessage: () => {}, onExit: (_description, tail) => resolve(tail), stderrFilter: dropV8OomReports() })
      const tail = await exited
      expect(written.join('')).toBe(`x${'ü'.repeat(70_000)}\nafter`)
      expect(tail).toContain('<--- Last few GCs --->')
    } finally {
      process.stderr.write = write
    }
  })
})
