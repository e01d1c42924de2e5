/**
 * The isolate worker's own full garbage collection (issue 12: memory flat; SPEC S9.1), without
 * `--expose-gc` on its command line. V8's flags are process-wide: with that flag every context
 * isolated-vm makes in the worker, each script's included, got a `gc()` function (a hostile
 * review, round 14: a script looping over it spent GC helper threads' CPU outside its own CPU
 * limit, about 0.8 s over a 3 s limit; and scripts saw a global the README does not list). So the
 * flag is set only while one context of Node's own is made, `gc` is taken from it, and it is unset
 * again; call this before the worker makes any isolate.
 */
import v8 from 'node:v8'
import vm from 'node:vm'

/**
 * A full garbage collection of this process's own heap (V8's `gc` extension), or `undefined`
 * when V8 would not give one. Contexts made afterwards, isolated-vm's among them, have no `gc`.
 * Never throws.
 */
export function takeWorkerGc(): (() => void) | undefined {
  try {
    v8.setFlagsFromString('--expose-gc')
    // A bare context (no Node contextify interceptors): about 1 ms on the worker's start path.
    // (6fbf10d's 8-9 ms for a contextified one counted loading node:v8 and node:vm too; a review
    // measured 1.0-1.1 against 1.1-1.2 ms.)
    const gc: unknown = vm.runInContext('gc', vm.createContext(vm.constants.DONT_CONTEXTIFY))
    return typeof gc === 'function' ? (gc as () => void) : undefined
  } catch {
    return undefined
  } finally {
    v8.setFlagsFromString('--no-expose-gc')
  }
}
