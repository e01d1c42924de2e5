/**
 * One supervised worker, a child process or a worker thread, behind one small interface, so the
 * code that supervises it (`check/checker-pool.ts`, `isolate/isolate-supervisor.ts`) stays the
 * same whichever it is. The
 * host can always stop it: SIGKILL for a process, `terminate()` for a thread (V8 stops running
 * JavaScript at its next interrupt check, even inside a synchronous loop).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import type { Socket } from 'node:net'
import { getPriority, setPriority, tmpdir } from 'node:os'
import path from 'node:path'
import type { Readable } from 'node:stream'
import { StringDecoder } from 'node:string_decoder'
import { Worker } from 'node:worker_threads'
import { stopAtExit } from '../stop-at-exit.ts'
import { guardedDelivery } from './guarded-delivery.ts'
import { hostFrames } from './host-frames.ts'

/** Where a worker runs: its own process (SIGKILLed to stop) or a thread of this one (terminated). */
export type WorkerKind = 'process' | 'thread'

/** A stateful filter of one stream's text (`StartWorkerOptions.stderrFilter`; SPEC S9.1): `push` and `end` return what to forward. */
export interface StderrFilter {
  push(text: string): string
  end(): string
}

/** Options of {@link startWorker}. */
export interface StartWorkerOptions<Message> {
  kind: WorkerKind
  /** Absolute path of the worker's main module. */
  entry: string
  /** Old-generation heap limit of the worker in MB (`--max-old-space-size` / `resourceLimits`); default Node's. */
  memoryMb?: number
  /** Arguments after the entry (`process.argv[2]`…; processes only). */
  args?: string[]
  /** Node flags of a worker process (the heap limit is added). */
  execArgv?: string[]
  /** Defaults for a worker process's environment; this process's own variables win. */
  env?: Readonly<Record<string, string>>
  /**
   * Nice value added to a worker process (POSIX `setpriority`), so work a script controls yields
   * the CPU to the host's routing when cores are short. Processes only; default 0.
   */
  niceness?: number
  /**
   * When {@link niceness} applies: `'start'` (default) as the process is forked, `'first-message'`
   * once it sends its first message (a worker's `ready`), so its own start-up, which nothing a
   * script controls takes part in, is not slowed by it on a busy machine (issue 12).
   */
  niceFrom?: 'start' | 'first-message'
  /**
   * Largest message a worker process may send, in bytes (its JSON line, and its long strings
   * together; default `frame-reader.ts`'s limits, 64 MiB and 1 GiB). Past it the worker is stopped.
   */
  maxMessageBytes?: number
  /**
   * Every message the worker sends, in order. A worker process's messages cross as JSON frames
   * with long strings beside them, over a socket on its fd 3 (`host-frames.ts`; the worker opens
   * its end with `parent-frames.ts`), so they must be plain data; a thread's by structured clone.
   * Nothing a worker writes there can throw in the host: bytes that are no frame, or a message
   * `onMessage` throws on, stop that worker.
   */
  onMessage: (message: Message) => void
  /**
   * Called once when the worker has ended, however; `description` says how ("signal SIGKILL"),
   * `stderrTail` is the last {@link STDERR_TAIL_CHARS} characters it wrote on stderr ('' for none).
   */
  onExit: (description: string, stderrTail: string) => void
  /** Filters what of the worker's stderr reaches this process's stderr (default: all of it); the tail keeps all. */
  stderrFilter?: StderrFilter
}

/**
 * Default of `PtcConfig.startTimeoutMs`: how long a checker or isolate worker may take to become
 * ready before its start fails, in ms (60 s). A safety limit for a start that truly hangs, not a
 * deadline: a loaded 2-core machine starts one in 1-5 s, so it is far above any slow start.
 */
export const DEFAULT_START_TIMEOUT_MS = 60_000

/** How a start that reached `startTimeoutMs` ended, for the "could not start" error. */
export function startLimitFailure(startTimeoutMs: number): string {
  return `it was not ready within ${startTimeoutMs} ms, the start limit set by PtcConfig.startTimeoutMs`
}

/**
 * What a worker's start failure adds about its stderr: ` Its last stderr: a | b` (the last 5
 * lines of `tail`, a {@link StartWorkerOptions.onExit} stderr tail, that say something: stack
 * frames, blank lines and Node's version footer left out), or ` It wrote nothing on stderr.`
 */
export function stderrNote(tail: string): string {
  const lines = tail.split('\n').filter((line) => line.trim() !== '' && !/^\s+at /.test(line) && !/^Node\.js v\d/.test(line))
  return lines.length === 0 ? ' It wrote nothing on stderr.' : ` Its last stderr: ${lines.slice(-5).join(' | ')}`
}

/** How much of a worker's stderr is kept for its exit report. */
export const STDERR_TAIL_CHARS = 2_000
/** After a worker ended, how long its stderr may take to drain before `onExit` is called without the rest. */
const STDERR_DRAIN_MS = 500

/**
 * Forwards `stream` (a worker's stderr) to this process's stderr as it comes, as an inherited
 * stderr would, and keeps its tail. `drained(then)` calls `then` once the stream ended, or after
 * {@link STDERR_DRAIN_MS} when something (a grandchild holding it open) keeps it from ending.
 */
function keepTail(stream: Readable | null, filter?: StderrFilter): { tail: () => string; drained: (then: () => void) => void } {
  let tail = ''
  // One decoder for both: a character cut between two chunks is decoded whole, not as two U+FFFD.
  const decoder = new StringDecoder('utf8')
  stream?.on('data', (chunk: Buffer) => {
    const text = decoder.write(chunk)
    if (filter === undefined) process.stderr.write(chunk)
    else process.stderr.write(filter.push(text))
    tail = (tail + text).slice(-STDERR_TAIL_CHARS)
  })
  if (filter !== undefined) stream?.once('end', () => process.stderr.write(filter.push(decoder.end()) + filter.end()))
  return {
    tail: () => tail,
    drained(then) {
      if (stream === null || stream.readableEnded || stream.destroyed) return then()
      const done = (): void => {
        clearTimeout(timer)
        then()
      }
      const timer = setTimeout(done, STDERR_DRAIN_MS)
      timer.unref()
      stream.once('close', done)
    },
  }
}

/** A started worker. */
export interface WorkerChannel<Message> {
  /**
   * Sends `message` (JSON frames to a process, structured clone to a thread); false when
   * the worker is gone or the message cannot be cloned or encoded (a BigInt, a cycle).
   */
  send(message: Message): boolean
  /** Stops the worker now, whatever it is doing; `onExit` follows. Idempotent. */
  kill(): void
  /** Whether the worker keeps this process's event loop alive. */
  setRef(ref: boolean): void
  /** The child's pid (process) or the thread id (thread); for tests and diagnostics. */
  readonly id: number | undefined
}

/**
 * How much lower than the host the checker and isolate worker processes run: under CPU pressure
 * (two scripts spinning on a 2-core machine) the host's routing and other sessions' short runs
 * still get the CPU first.
 */
export const WORKER_NICENESS = 5

/**
 * Starts one worker. Never throws for a worker that fails to start: `onExit` reports it.
 * @throws Error only when the entry cannot even be handed to Node (a thread's bad path).
 */
export function startWorker<ToWorker, FromWorker>(options: StartWorkerOptions<FromWorker>): WorkerChannel<ToWorker> {
  return options.kind === 'process' ? startProcess(options) : startThread(options)
}

function startProcess<ToWorker, FromWorker>(options: StartWorkerOptions<FromWorker>): WorkerChannel<ToWorker> {
  const execArgv = [...(options.execArgv ?? []), ...(options.memoryMb === undefined ? [] : [`--max-old-space-size=${options.memoryMb}`])]
  // Frames, not Node's IPC: a worker that writes arbitrary bytes or messages on Node's IPC channel
  // (an internal `NODE_HANDLE_ACK`, bytes that do not deserialize) makes Node throw in the host,
  // which ends it; frames never do (host-frames.ts). They are also 5-11 µs cheaper a bare round
  // trip (issue 12, json-frames.ts).
  const child = spawn(process.execPath, [...execArgv, options.entry, ...(options.args ?? [])], {
    // Node's compile cache also caches type-stripped TypeScript: a warm start skips loading the
    // stripper and recompiling the modules (about 0.3 s of a worker's start-up). Same default
    // folder as `module.enableCompileCache()`; an explicit setting wins.
    env: { NODE_COMPILE_CACHE: path.join(tmpdir(), 'node-compile-cache'), ...options.env, ...process.env },
    // Its stdout goes to our stderr: `ptc run --json` owns stdout. Its stderr is forwarded
    // there too, and its tail kept for the exit report. Fd 3 carries the messages.
    stdio: ['ignore', 2, 'pipe', 'pipe'],
  })
  const stderr = keepTail(child.stderr, options.stderrFilter)
  // SIGKILLed if the host process exits first.
  const forget = stopAtExit(child, 'SIGKILL')
  let toNice = options.niceness
  const lowerPriority = (): void => {
    if (toNice === undefined || child.pid === undefined) return
    try {
      setPriority(child.pid, Math.min(19, getPriority(child.pid) + toNice))
    } catch {
      // Only a preference: the worker runs at the host's priority.
    }
    toNice = undefined
  }
  if (options.niceFrom !== 'first-message') lowerPriority()
  let exited = false
  const exit = (description: string): void => {
    if (exited) return
    exited = true
    forget()
    stderr.drained(() => options.onExit(description, stderr.tail()))
  }
  const deliver = (message: FromWorker): void => {
    lowerPriority()
    options.onMessage(message)
  }
  const framed = hostFrames(child.stdio[3] as Socket, deliver as (message: unknown) => void, () => child.kill('SIGKILL'), options.maxMessageBytes)
  child.on('error', (error) => {
    // Spawn failures leave no pid (and may never emit 'exit'); send failures are seen by send().
    if (child.pid === undefined) exit(`it could not be started: ${error.message}`)
  })
  child.on('exit', (code, signal) => {
    const problem = framed.problem
    if (problem !== undefined) exit(`it sent a message that could not be read (${problem}), so it was stopped`)
    else exit(signal !== null ? `signal ${signal}` : `exit code ${code ?? 'unknown'}`)
  })
  return {
    id: child.pid,
    send(message) {
      return !exited && framed.send(message)
    },
    kill: () => void child.kill('SIGKILL'),
    setRef(ref) {
      if (exited) return
      // The stderr pipe is a handle of its own (a net.Socket), like the IPC channel.
      const pipe = child.stderr as (Readable & { ref?: () => void; unref?: () => void }) | null
      if (ref) {
        child.ref()
        framed.setRef(true)
        pipe?.ref?.()
      } else {
        child.unref()
        framed.setRef(false)
        pipe?.unref?.()
      }
    },
  }
}

function startThread<ToWorker, FromWorker>(options: StartWorkerOptions<FromWorker>): WorkerChannel<ToWorker> {
  const worker = new Worker(options.entry, {
    // Process-wide flags (`--no-node-snapshot`) are refused in a thread.
    execArgv: [],
    ...(options.memoryMb !== undefined && { resourceLimits: { maxOldGenerationSizeMb: options.memoryMb } }),
    stderr: true,
  })
  const stderr = keepTail(worker.stderr)
  let exited = false
  let failure: string | undefined
  const guarded = guardedDelivery(options.onMessage, () => void worker.terminate().catch(() => {}))
  worker.on('message', guarded.deliver)
  worker.on('error', (error) => {
    // An uncaught error or ERR_WORKER_OUT_OF_MEMORY; 'exit' follows.
    failure ??= `${error.name}: ${error.message}`
  })
  worker.on('exit', (code) => {
    if (exited) return
    exited = true
    const problem = guarded.problem()
    const description = problem !== undefined ? `it sent a message that could not be read (${problem}), so it was stopped` : (failure ?? `exit code ${code}`)
    stderr.drained(() => options.onExit(description, stderr.tail()))
  })
  return {
    id: worker.threadId,
    send(message) {
      if (exited) return false
      try {
        worker.postMessage(message)
        return true
      } catch {
        return false
      }
    },
    kill: () => void worker.terminate().catch(() => {}),
    setRef(ref) {
      if (exited) return
      if (ref) worker.ref()
      else worker.unref()
    },
  }
}
