/**
 * How an isolate worker process is started (SPEC S9.1), and starting one before the host that
 * will use it exists (issue 12: start-up). A `ptc run` knows from its arguments that a script
 * will run, so it starts the worker first and loads the host's modules while the worker starts
 * (Node without its start-up snapshot, isolated-vm, the isolate pool: the longest part of a
 * cold run); the host's {@link IsolateSupervisor} then adopts that worker instead of forking one.
 */
import { fileURLToPath } from 'node:url'
import { startWorker, WORKER_NICENESS, type WorkerChannel } from '../worker-channel.ts'
import type { ChildMessage, IsolateWorkerOptions, ParentMessage } from './worker-messages.ts'
import { DEFAULT_RUN_LIMITS } from './run-limits.ts'
import { workerStackFlag } from './worker-stack.ts'
import { dropV8OomReports } from './v8-oom-report.ts'

/** The worker's main module. */
export const DEFAULT_WORKER_ENTRY = fileURLToPath(new URL('./isolate-worker-entry.ts', import.meta.url))

/**
 * Largest semi-space of the worker's young generation, in MB (V8's `--max-semi-space-size`).
 * Without a cap V8 doubles the young generation whenever the bytes that survived scavenges since
 * its last growth exceed its size, which a long series of runs always reaches: the worker's RSS
 * then stepped up by 16-32 MB every few thousand runs although nothing leaked (its old space
 * stayed flat). Capped, the RSS stays nearly flat from the first runs on (bench/memory.bench.ts).
 */
export const WORKER_SEMI_SPACE_MB = 4

/** The worker's V8 flag turning allocation-site pretenuring off (see `startIsolateWorker`). */
export const WORKER_NO_PRETENURING = '--no-allocation-site-pretenuring'

/** The worker's Node and V8 flags (see `startIsolateWorker`). */
const WORKER_FLAGS = ['--no-node-snapshot', `--max-semi-space-size=${WORKER_SEMI_SPACE_MB}`, WORKER_NO_PRETENURING]

/** What the owner of a worker hears from it (see `StartWorkerOptions`). */
export interface WorkerHandlers {
  onMessage: (message: ChildMessage) => void
  onExit: (description: string, stderrTail: string) => void
}

/**
 * Forks an isolate worker process for `options` from `entry`. Never throws for a worker that
 * fails to start: `handlers.onExit` reports it.
 */
export function startIsolateWorker(options: IsolateWorkerOptions, entry: string, handlers: WorkerHandlers): WorkerChannel<ParentMessage> {
  // A main-thread stack as deep as isolated-vm's threads, for the steps it runs itself (worker-stack.ts).
  const env = { MALLOC_ARENA_MAX: '2' }
  const stack = workerStackFlag(env, [process.execPath, ...WORKER_FLAGS, entry, JSON.stringify(options)])
  return startWorker<ParentMessage, ChildMessage>({
    kind: 'process',
    entry,
    args: [JSON.stringify({ ...options, stepsHere: stack !== undefined })],
    // isolated-vm on Node >= 20 needs `--no-node-snapshot`; the worker's own heap holds no
    // script data. The young generation is capped (WORKER_SEMI_SPACE_MB, issue 12: memory flat).
    // No allocation-site pretenuring: V8 judged the sites of a run's objects long-lived and
    // allocated them straight into old space, so every run's garbage (about 4.6 KB) stayed there
    // until the next full GC and the RSS rose 25-30 MB between full GCs (issue 12).
    // No `--expose-gc`: it would give every script's context a `gc` (worker-gc.ts takes one for the worker alone).
    execArgv: [...WORKER_FLAGS, ...(stack === undefined ? [] : [stack])],
    // Fewer glibc malloc arenas: isolates allocate on many threads, and memory freed in
    // per-thread arenas stays in the RSS (issue 12: 89 -> 101 MB over 4,000 runs instead of -> 106).
    env,
    // Niced once ready: only the runs, not the start, should yield to the host's routing.
    niceness: WORKER_NICENESS,
    niceFrom: 'first-message',
    // The run already answers `memory`; V8's report of it would look like a crash of the host.
    stderrFilter: dropV8OomReports(),
    ...handlers,
  })
}

/** The worker started ahead, until a supervisor takes it. */
interface Prestarted {
  key: string
  channel: WorkerChannel<ParentMessage>
  /** What it said before it was taken, in order; `undefined` once taken. */
  heard: ({ message: ChildMessage } | { exit: [string, string] })[] | undefined
  handlers: WorkerHandlers | undefined
}

let prestarted: Prestarted | undefined

/**
 * The isolate worker's options for a host's `PtcConfig`: `poolSize` (default 2) and
 * `limits.memoryMb` (default `DEFAULT_RUN_LIMITS.memoryMb`). Whatever starts a worker for a host,
 * or prestarts one for it to adopt, derives them here: a prestarted worker is adopted only for
 * equal options (see {@link takePrestartedWorker}), so two derivations drifting apart would
 * silently cost every first run the worker's start.
 */
export function isolateWorkerOptions(config: { poolSize?: number | undefined; limits?: { memoryMb?: number | undefined } | undefined }): IsolateWorkerOptions {
  return { poolSize: config.poolSize ?? 2, memoryMb: config.limits?.memoryMb ?? DEFAULT_RUN_LIMITS.memoryMb }
}

/** Whether a host with this `PtcConfig` starts its isolate worker before its first run (`prestart`, default true; never inline). */
export function prestartsWorker(config: { isolation?: 'process' | 'inline' | undefined; prestart?: boolean | undefined }): boolean {
  return config.isolation !== 'inline' && config.prestart !== false
}

/**
 * Starts the worker a later `IsolateSupervisor` with these `options` and the default entry will
 * adopt (see {@link takePrestartedWorker}). It does not keep the process alive, and one never
 * taken ends with the process (every worker is SIGKILLed at exit). A second call while one
 * waits does nothing. Returns the waiting worker's pid (`undefined` when it could not be forked).
 */
export function prestartIsolateWorker(options: IsolateWorkerOptions): number | undefined {
  if (prestarted !== undefined) return prestarted.channel.id
  const entry: Prestarted = { key: keyOf(options, DEFAULT_WORKER_ENTRY), channel: undefined!, heard: [], handlers: undefined }
  entry.channel = startIsolateWorker(options, DEFAULT_WORKER_ENTRY, {
    onMessage: (message) => (entry.handlers ? entry.handlers.onMessage(message) : entry.heard?.push({ message })),
    onExit: (description, tail) => (entry.handlers ? entry.handlers.onExit(description, tail) : entry.heard?.push({ exit: [description, tail] })),
  })
  entry.channel.setRef(false)
  prestarted = entry
  return entry.channel.id
}

/** Kills the prestarted worker with pid `id` if nothing took it (a host that failed to start). */
export function dropPrestartedWorker(id: number | undefined): void {
  if (id === undefined || prestarted?.channel.id !== id) return
  prestarted.channel.kill()
  prestarted = undefined
}

/**
 * The prestarted worker, when there is one for `options` and `entry`, now reporting to
 * `handlers`: what it said before is replayed to them in order, after the caller's current
 * synchronous code (a microtask), so the caller can first store the channel. `undefined`
 * otherwise; a prestarted worker for other options is killed (it would never be taken).
 */
export function takePrestartedWorker(options: IsolateWorkerOptions, entry: string, handlers: WorkerHandlers): WorkerChannel<ParentMessage> | undefined {
  const taken = prestarted
  if (taken === undefined) return undefined
  prestarted = undefined
  if (taken.key !== keyOf(options, entry)) {
    taken.channel.kill()
    return undefined
  }
  const heard = taken.heard ?? []
  taken.heard = undefined
  queueMicrotask(() => {
    for (const event of heard) {
      if ('message' in event) handlers.onMessage(event.message)
      else handlers.onExit(...event.exit)
    }
    taken.handlers = handlers
  })
  return taken.channel
}

function keyOf(options: IsolateWorkerOptions, entry: string): string {
  return JSON.stringify([entry, options.poolSize, options.memoryMb])
}
