/**
 * Runs one command to completion for the bash tool (and later background jobs): own process
 * group, whole-group kill on abort or deadline, byte-capped output. A non-zero exit is a value,
 * not an exception (SPEC S6.5); cancellation honours the caller's signal (S1.3).
 */
import { spawn } from 'node:child_process'
import { StringDecoder } from 'node:string_decoder'

/** Which stream a chunk came from. */
export type OutputStream = 'stdout' | 'stderr'

/** Input of `runProcess`. */
export interface RunProcessOptions {
  /** Program and arguments, spawned without a shell; `argv[0]` is looked up on `env.PATH`. */
  readonly argv: readonly string[]
  /** Absolute working directory. */
  readonly cwd: string
  /** Full environment of the child; default `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>
  /** Aborting kills the whole process group (SIGTERM, then SIGKILL after `killGraceMs`). */
  readonly signal?: AbortSignal
  /** Deadline in ms from spawn; at it the group gets SIGTERM, then SIGKILL after `killGraceMs`. None by default. */
  readonly timeoutMs?: number
  /** Bytes of each stream kept (the head); the rest is counted and dropped. Default 1 MiB. */
  readonly maxOutputBytes?: number
  /** Grace in ms between SIGTERM and SIGKILL. Default 2000. */
  readonly killGraceMs?: number
  /** Text the child writes to stdin, then stdin is closed; by default stdin is empty (/dev/null). */
  readonly input?: string
  /** Every decoded output chunk as it arrives, uncapped (for background jobs). Must not throw. */
  readonly onOutput?: (chunk: string, stream: OutputStream) => void
}

/** Outcome of `runProcess`; output is UTF-8 decoded (invalid bytes become U+FFFD). */
export interface RunProcessResult {
  /** Exit code, or `null` when the process died by a signal. */
  readonly exitCode: number | null
  /** The terminating signal (`'SIGKILL'`...), or `null`. */
  readonly signal: string | null
  readonly stdout: string
  readonly stderr: string
  /** True when either stream exceeded `maxOutputBytes` and was cut. */
  readonly truncated: boolean
  /** Total bytes each stream produced, cut or not. */
  readonly outputBytes: { readonly stdout: number; readonly stderr: number }
  /** Killed because `timeoutMs` passed. */
  readonly timedOut: boolean
  /** Killed because `signal` aborted. */
  readonly aborted: boolean
  /** Wall time from spawn to the end of output, in ms. */
  readonly durationMs: number
}

/** Default byte cap of each output stream: 1 MiB. */
export const DEFAULT_MAX_OUTPUT_BYTES = 1024 * 1024
/** Default grace between SIGTERM and SIGKILL, in ms. */
export const DEFAULT_KILL_GRACE_MS = 2000
/** After the leader exits, how long (ms) to wait for stray holders of the pipes before closing them. */
const DRAIN_AFTER_EXIT_MS = 250

/**
 * Run `argv` to completion in its own process group (`detached: true`) and resolve with the
 * outcome (S6.5: a non-zero exit, a timeout or an abort resolve; they do not reject). On abort or
 * timeout the whole group gets SIGTERM, then SIGKILL after `killGraceMs`, so a command that
 * ignores SIGTERM still dies at its deadline plus the grace. When the group leader exits, the rest
 * of its group is SIGKILLed, so no background child outlives the call. (A child that leaves the
 * group with setsid escapes this; under bwrap, `--die-with-parent` and the pid namespace catch it.)
 *
 * Rejects with an `Error` naming the program when it cannot be spawned (ENOENT: not found on
 * PATH; EACCES...), or when `argv` is empty. Rejects with the signal's reason when `signal` is
 * already aborted: nothing is spawned.
 */
export function runProcess(options: RunProcessOptions): Promise<RunProcessResult> {
  const { argv, signal } = options
  if (argv.length === 0) return Promise.reject(new Error('runProcess: argv is empty'))
  if (signal?.aborted) return Promise.reject(signal.reason)
  const maxBytes = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT_BYTES
  const graceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS
  const started = performance.now()

  return new Promise((resolve, reject) => {
    const child = spawn(argv[0]!, argv.slice(1), {
      cwd: options.cwd,
      env: options.env ?? process.env,
      detached: true,
      stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    })
    const captures = { stdout: new Capture(maxBytes), stderr: new Capture(maxBytes) }
    let timedOut = false
    let aborted = false
    let exit: { code: number | null; signal: string | null } | undefined
    let settled = false
    const timers: NodeJS.Timeout[] = []

    const killGroup = (sig: NodeJS.Signals) => {
      if (child.pid === undefined) return
      try {
        process.kill(-child.pid, sig)
      } catch {} // ESRCH: the group is already gone.
    }
    const terminate = () => {
      killGroup('SIGTERM')
      timers.push(setTimeout(() => killGroup('SIGKILL'), graceMs))
    }
    const onAbort = () => {
      if (exit || aborted || timedOut) return
      aborted = true
      terminate()
    }
    const finish = () => {
      if (settled) return
      settled = true
      for (const timer of timers) clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      const stdout = captures.stdout.finish()
      const stderr = captures.stderr.finish()
      resolve({
        exitCode: exit?.code ?? null,
        signal: exit?.signal ?? null,
        stdout,
        stderr,
        truncated: captures.stdout.truncated || captures.stderr.truncated,
        outputBytes: { stdout: captures.stdout.total, stderr: captures.stderr.total },
        timedOut,
        aborted,
        durationMs: Math.round(performance.now() - started),
      })
    }

    child.once('error', (error: NodeJS.ErrnoException) => {
      if (child.pid !== undefined) return // Errors after spawn (e.g. a kill failing) are not fatal.
      settled = true
      for (const timer of timers) clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      const hint = error.code === 'ENOENT' ? 'not found (is it installed and on PATH?) or the working directory does not exist' : (error.code ?? error.message)
      reject(new Error(`cannot run ${argv[0]} in ${options.cwd}: ${hint}`, { cause: error }))
    })
    if (child.pid === undefined) return

    for (const stream of ['stdout', 'stderr'] as const) {
      const decoder = new StringDecoder('utf8')
      child[stream]!.on('data', (chunk: Buffer) => {
        captures[stream].push(chunk)
        if (options.onOutput) {
          const text = decoder.write(chunk)
          if (text) options.onOutput(text, stream)
        }
      })
      child[stream]!.on('end', () => {
        const rest = decoder.end()
        if (rest && options.onOutput) options.onOutput(rest, stream)
      })
    }
    if (options.input !== undefined && child.stdin) {
      child.stdin.on('error', () => {}) // EPIPE when the command does not read its input.
      child.stdin.end(options.input)
    }

    child.once('exit', (code, sig) => {
      exit = { code, signal: sig }
      // The leader is gone: kill what is left of its group (backgrounded children) so their pipe
      // ends close and 'close' follows promptly. Only now, once: later the group id may be reused.
      killGroup('SIGKILL')
      timers.push(setTimeout(() => {
        child.stdout?.destroy()
        child.stderr?.destroy()
        finish()
      }, DRAIN_AFTER_EXIT_MS))
    })
    child.once('close', () => {
      if (exit) finish()
    })
    signal?.addEventListener('abort', onAbort, { once: true })
    if (options.timeoutMs !== undefined) {
      timers.push(setTimeout(() => {
        if (exit || aborted) return
        timedOut = true
        terminate()
      }, options.timeoutMs))
    }
  })
}

/** Keeps the first `max` bytes of a stream and counts the rest. */
class Capture {
  readonly max: number
  total = 0
  truncated = false
  private readonly chunks: Buffer[] = []
  private kept = 0

  constructor(max: number) {
    this.max = max
  }

  push(chunk: Buffer): void {
    this.total += chunk.length
    const room = this.max - this.kept
    if (room <= 0) {
      if (chunk.length > 0) this.truncated = true
      return
    }
    if (chunk.length > room) {
      this.truncated = true
      chunk = chunk.subarray(0, room)
    }
    this.chunks.push(chunk)
    this.kept += chunk.length
  }

  /** The kept head, decoded; a multi-byte character cut at the cap is dropped, not mangled. */
  finish(): string {
    const decoder = new StringDecoder('utf8')
    const text = decoder.write(Buffer.concat(this.chunks))
    return this.truncated ? text : text + decoder.end()
  }
}
