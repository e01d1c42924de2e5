/**
 * A V8 start-up snapshot of the isolate runtime (SPEC S9.1; issue 12: a cold run at the cost of
 * raw isolated-vm). Evaluating the 23 KB runtime bundle in every fresh isolate cost a compile and
 * a run of its top level (about 1.1 ms of the 6.5 ms an isolate took to prepare, load 10); an
 * isolate made from this snapshot starts with the bundle already evaluated in its default context,
 * so preparing one is the isolate, its context and `installRuntime` (binding the host callbacks,
 * removing globals), which stays per isolate. Made once per process with isolated-vm's
 * `Isolate.createSnapshot` (about 11 ms idle, 40-55 ms at load 7-8), when the pool refills after
a run: the first isolates of a process evaluate the bundle, so neither the worker's start nor a
first run waits for it. When making it fails, isolates are prepared as before.
 *
 * The snapshot holds only what evaluating the bundle makes: built-ins captured by `intrinsics.ts`
 * and the runtime's functions, no host object and no state of any run. Each context made from it
 * is a fresh copy (its own `Math.random` state, its own globals).
 */
import ivm from 'isolated-vm'

/** The file name of the runtime's frames (`script-frames.ts` tells them from the script's by it). */
export const RUNTIME_FILENAME = 'file:///ptc/runtime.js'

/**
 * The global that holds `installRuntime` in a context made from the snapshot; the isolate's
 * preparation reads and deletes it before any script runs.
 */
export const SNAPSHOT_INSTALL_GLOBAL = '__ptcInstallRuntime'

let made: { code: string; snapshot: ivm.ExternalCopy<ArrayBuffer> | undefined } | undefined

/** The snapshot for `code` when {@link runtimeSnapshot} has made it already, else `undefined` (never makes it). */
export function madeRuntimeSnapshot(code: string): ivm.ExternalCopy<ArrayBuffer> | undefined {
  return made?.code === code ? made.snapshot : undefined
}

/**
 * The snapshot for the runtime bundle `code` (the function body `loadIsolateRuntimeSource`
 * returns), made on first use and kept for the process; `undefined` when isolated-vm cannot make
 * it (the caller evaluates the bundle in each isolate instead). Never throws.
 */
export function runtimeSnapshot(code: string): ivm.ExternalCopy<ArrayBuffer> | undefined {
  if (made?.code !== code) {
    let snapshot: ivm.ExternalCopy<ArrayBuffer> | undefined
    try {
      snapshot = ivm.Isolate.createSnapshot([{ code: `globalThis.${SNAPSHOT_INSTALL_GLOBAL} = (function () {\n${code}\n})()`, filename: RUNTIME_FILENAME }], WARMUP_SCRIPT)
    } catch (error) {
      process.emitWarning(`the isolate runtime snapshot could not be made, so every isolate evaluates the runtime: ${error instanceof Error ? error.message : String(error)}`, { code: 'PTC_RUNTIME_SNAPSHOT' })
    }
    made = { code, snapshot }
  }
  return made.snapshot
}

/**
 * Run by `createSnapshot` in a throw-away copy of the snapshot's context (isolated-vm's
 * `warmup_script`): one run of the runtime with no-op host callbacks, a call that succeeds, one
 * that fails, a log line and a returned value. The snapshot keeps the code V8 compiled for that
 * (`FunctionCodeHandling::kKeep`), none of the run's state, so a run in a new isolate does not
 * first compile the runtime functions it uses (issue 12: about 1 ms of a trivial run otherwise).
 */
const WARMUP_SCRIPT = `(async function () {
  const noop = function () {}
  const control = globalThis.${SNAPSHOT_INSTALL_GLOBAL}(noop, noop, noop, noop, noop, noop)
  const config = JSON.stringify({ toolNames: ['warm'], maxToolCalls: 10, maxCrossingBytes: 1000000, maxLogBytes: 10000, logEntryOverhead: 16 })
  control.start(async function () {
    console.log('warm', 1, { a: [true, null] })
    const value = await tools.warm({ list: [1, 'two', null, { three: 3 }] })
    try { await tools.warm({}) } catch (error) { String(error instanceof ToolCallError && error.message) }
    return { value, sum: [1, 2].map((n) => n * 2) }
  }, config)
  control.settle('now', 1, true, '{"ok":[1,"x"]}')
  for (let turn = 0; turn < 4; turn++) await null
  control.settle('unobserved', 2, false, 'warm failure')
})()`
