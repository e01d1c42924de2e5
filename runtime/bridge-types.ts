/**
 * The contract between the host runner (`src/ptc/isolate/isolate-run.ts`) and the code that runs
 * inside the isolate (`runtime/index.ts`). Types only: both sides import it with `import type`,
 * so nothing here exists at run time (SPEC S9.4: only JSON strings cross the boundary).
 *
 * Every value that crosses is a primitive (number, boolean, string): `settle` takes its outcomes
 * and `HostCall` its calls as flat lists of primitive triples, so isolated-vm transfers each
 * argument by value without serializing an array (issue 12). No isolated-vm object is ever stored where script code
 * can reach it: the runtime keeps the host callbacks in closure variables only.
 */

/** Console levels a script can log at (SPEC S9.7: logs go through the outer run_code caps). */
export type LogLevel = 'log' | 'info' | 'warn' | 'error' | 'debug'

/** Per-run settings the host passes to `RuntimeControl.start` as a JSON string. */
export interface RuntimeConfig {
  /** Names of the visible tools; `tools` gets exactly these own properties. */
  toolNames: string[]
  /** Calls beyond this count reject inside the isolate without crossing (the host re-checks). */
  maxToolCalls: number
  /**
   * Longest JSON string (in UTF-16 code units, a lower bound of its UTF-8 bytes) the runtime
   * sends for one argument object or the return value; the host re-checks in exact bytes.
   */
  maxCrossingBytes: number
  /** Log budget in UTF-16 code units; each entry also costs `logEntryOverhead`. */
  maxLogBytes: number
  /** Fixed accounting cost of one log entry, so a flood of empty lines also exhausts the budget. */
  logEntryOverhead: number
}

/**
 * Script → host: new tool calls, as `callId, toolName, argsJson` triples one after another (one
 * or more; `call-outbox.ts` sends a synchronous stretch's calls together), sometimes followed by
 * one extra argument the host ignores (see `call-outbox.ts`: isolated-vm drops some argument
 * counts). Fire-and-forget; the answers come back through `settle`.
 */
export type HostCall = (...calls: (number | string)[]) => void

/** Script → host: one console line, already formatted. */
export type HostLog = (level: LogLevel, text: string) => void

/**
 * Script → host: the script ended. `value` carries the JSON of the return value, `undefined`
 * an empty payload, `error` the JSON of `{ name, message, stack?, toolName? }` (`stack`: the
 * thrown error's own V8 stack text, for the script's line and column; `toolName`: the tool of a
 * `ToolCallError`). `pendingIds`: the ids of the calls whose outcome the script never received,
 * comma-separated, `''` for none; `handedIds`: those of them whose promise the script had called
 * `then` on (passed to `Promise.all`/`race`/`any`, or `.then`/`.catch`/`.finally`), the rest it
 * never awaited.
 */
export type HostFinish = (kind: 'value' | 'undefined' | 'error', payload: string, pendingIds: string, handedIds: string) => void

/** Host → script: the outcome of one call. `ok` carries the value JSON, otherwise a message. */
export type Settlement = [callId: number, ok: boolean, text: string]

/** Outcomes as `settle` takes them: `callId, ok, text` of each, one after another. */
export type Settlements = (number | boolean | string)[]

/** What {@link InstallRuntime} returns: the entry points the host drives a run with. */
export interface RuntimeControl {
  /**
   * Called once per run, with `configJson` the JSON of a {@link RuntimeConfig}: sets the limits,
   * installs `tools`, then calls the compiled script function and reports its outcome through
   * `HostFinish`. One entry into the isolate for both (issue 12: every entry into an idle isolate
   * costs a thread hand-over). `now`: the host runs this first step on its own thread
   * (`applySync`), so its calls, logs and ending use the host's synchronous callbacks, as a
   * `'now'` settle's do (`host-callbacks.ts`). Later calls are ignored. Never throws.
   */
  start(script: () => Promise<unknown>, configJson: string, now?: boolean): void
  /**
   * Resolves or rejects pending tool calls, given as `callId, ok, text` triples one after another
   * (see {@link Settlements}). Unknown or repeated ids are ignored, and so is every
   * batch after the script ended: none of its code runs again. Never throws. `entry` says how
   * the host runs this step ({@link SettleEntry}). For `'unobserved'` returns a symbol that the
   * host asks to copy out with `result: { copy: true }` after the step has run. A symbol cannot be
   * copied, and isolated-vm then skips that entry's epilogue, which would drop the step's
   * unhandled rejections: they stay listed, step after step, for the next entry the host waits for
   * (issue 11, S9.3). Otherwise returns `undefined`.
   */
  settle(entry: SettleEntry, ...settlements: Settlements): symbol | undefined
}

/**
 * How the host runs a `settle` entry (issue 12): `'waited'`, on the isolate's thread, the host
 * waiting for its end (which reports the step's unhandled rejection); `'unobserved'`, on the
 * isolate's thread, not waited for (see `RuntimeControl.settle`); `'now'`, on the host's calling
 * thread (`applySync` in the isolate worker), the step's calls, logs and ending going through
 * the synchronous callbacks (`host-callbacks.ts`).
 */
export type SettleEntry = 'waited' | 'unobserved' | 'now'

/**
 * The function the runtime bundle evaluates to. Called once per isolate while it is prepared,
 * before its run is known; the callbacks forward to whichever run then takes the isolate. The
 * `now` set, isolated-vm's synchronous callbacks, serves the steps settled with `'now'`; without
 * it every step uses the first set.
 */
export type InstallRuntime = (hostCall: HostCall, hostLog: HostLog, hostFinish: HostFinish, nowCall?: HostCall, nowLog?: HostLog, nowFinish?: HostFinish) => RuntimeControl
