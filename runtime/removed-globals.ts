/**
 * Globals a script does not get (README, "What a script can use"): the realm's inert `console`
 * (the runtime installs its own); the shared-memory and WebAssembly surface, which a tool-calling
 * script has no use for and whose memory is not all accounted to the isolate's heap limit; and
 * V8's `gc`, which every context of a process started with `--expose-gc` has (an inline host may
 * be; the isolate worker takes its own without the flag: `src/ptc/isolate/worker-gc.ts`). Runs
 * when the runtime is installed, before any script code exists.
 */
const REMOVED_GLOBALS = ['console', 'SharedArrayBuffer', 'Atomics', 'WebAssembly', 'gc'] as const

/** Deletes each of {@link REMOVED_GLOBALS}; one that cannot be deleted (`gc` is not configurable) is set to `undefined`. Never throws. */
export function removeGlobals(globalObject: object): void {
  const globals = globalObject as Record<string, unknown>
  for (let index = 0; index < REMOVED_GLOBALS.length; index++) {
    const name = REMOVED_GLOBALS[index]!
    try {
      delete globals[name]
    } catch {
      try {
        globals[name] = undefined
      } catch {
        // Neither configurable nor writable: nothing of V8's is, today.
      }
    }
  }
}
