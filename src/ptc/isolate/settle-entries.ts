/**
 * How a batch of settlements enters the isolate, and how the unhandled rejections of the step in
 * which the script ends still reach the run when the host does not wait for that entry (issue 11,
 * SPEC S9.3).
 *
 * isolated-vm lists every promise that rejects with no handler (`PromiseRejectCallback`) and
 * takes the list off at the end of each entry into the isolate (`IsolateEnvironment::TaskEpilogue`
 * in isolated-vm 7.0.1's `src/isolate/environment.cc`), reporting its first rejection as the
 * entry's failure. An entry the host waits for (`apply`) rejects with it; an `applyIgnored` entry
 * drops it (`Phase2RunnerIgnored::Run` in `src/isolate/three_phase_task.cc` discards the result),
 * and waiting for every entry costs a fifth of a sequential call (issue 12). But the ignored
 * runner skips its epilogue altogether when the entry's result cannot be copied out, and that
 * copy is made after the step has run (V8 runs the microtasks, where the script resumes, when the
 * entry's call returns). So an entry not waited for copies out `settle`'s answer, an empty object
 * that the runtime fills with a symbol when the script ends: in the step where it ends, the copy
 * fails, the step's rejections (also those after the `return`) stay listed, and one entry waited
 * for afterwards ({@link SettleEntries.checkRejections}) reports them. Earlier steps of a
 * sequential script are not checked (their answer copies, their epilogue drops the list): making
 * every entry fail its copy cost as much as a tenth of a call.
 */
import type ivm from 'isolated-vm'
import type { Settlement } from '../../../runtime/bridge-types.ts'

/** Settlements are copied in; the entry waited for returns nothing. */
const OBSERVED = { arguments: { copy: true } } as const
/** The entry not waited for: `settle(batch, true)`'s answer is copied out after the step (see the file comment). */
const UNOBSERVED = { arguments: { copy: true }, result: { copy: true } } as const

/** The runtime's `settle` (`RuntimeControl.settle` in `runtime/bridge-types.ts`). */
export type SettleReference = ivm.Reference<(batch: Settlement[], keepRejections?: boolean) => unknown>

/** The settle entries of one run. */
export class SettleEntries {
  readonly #settle: SettleReference
  readonly #enter: (entry: Promise<unknown>) => void
  /** Whether the last entry sent was not waited for. */
  #lastUnobserved = false

  /** `enter` tracks an entry waited for: its failure is the run's to classify (a rejection, a limit). */
  constructor(settle: SettleReference, enter: (entry: Promise<unknown>) => void) {
    this.#settle = settle
    this.#enter = enter
  }

  /** Sends `batch`; waits for the entry when `wait`. */
  send(batch: Settlement[], wait: boolean): void {
    this.#lastUnobserved = !wait
    if (wait) this.#enter(this.#settle.apply(undefined, [batch], OBSERVED))
    else this.#settle.applyIgnored(undefined, [batch, true], UNOBSERVED)
  }

  /**
   * The script has ended. If the last entry was not waited for, the script may have ended in its
   * step: one entry waited for, with an empty batch (the runtime ignores it and runs none of the
   * script's code), reports what that step left rejected. It runs after that step, so a rejection
   * after the `return` in the same step is reported too.
   */
  checkRejections(): void {
    if (!this.#lastUnobserved) return
    this.#lastUnobserved = false
    this.#enter(this.#settle.apply(undefined, [[]], OBSERVED))
  }
}
