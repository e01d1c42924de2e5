/**
 * How a batch of settlements enters the isolate, and how the unhandled rejections of every step of
 * the script still reach the run when the host does not wait for the entries (issue 11, SPEC S9.3).
 *
 * isolated-vm lists every promise that rejects with no handler (`PromiseRejectCallback`) and
 * takes the list off at the end of each entry into the isolate (`IsolateEnvironment::TaskEpilogue`
 * in isolated-vm 7.0.1's `src/isolate/environment.cc`), reporting its first rejection as the
 * entry's failure. An entry the host waits for (`apply`) rejects with it; an `applyIgnored` entry
 * drops it (`Phase2RunnerIgnored::Run` in `src/isolate/three_phase_task.cc` discards the result),
 * and waiting for every entry costs a fifth of a sequential call (issue 12). But the ignored
 * runner skips its epilogue altogether when the entry's result cannot be copied out, and that
 * copy is made after the step has run (V8 runs the microtasks, where the script resumes, when the
 * entry's call returns). So an entry not waited for asks to copy out `settle`'s answer, a symbol,
 * which fails: no ignored entry takes the list off, the rejections of every step (a later handler
 * removes its promise from the list) stay listed, and the next entry waited for reports them,
 * at the latest the one sent after the script ended ({@link SettleEntries.checkRejections}).
 */
import type ivm from 'isolated-vm'
import type { SettleEntry, Settlement, Settlements } from '../../../runtime/bridge-types.ts'

/**
 * The entry not waited for: `settle(true, …)`'s answer, a symbol, is asked for after the step and
 * cannot be copied (see the file comment). The arguments are primitives, which isolated-vm
 * transfers by value: no `copy` option, so no serializer runs for them (an array of triples with
 * `arguments: { copy: true }` cost the host 5.9 µs an entry, the same outcomes as primitives 3.2 µs;
 * issue 12).
 */
const UNOBSERVED = { result: { copy: true } } as const

/** The runtime's `settle` (`RuntimeControl.settle` in `runtime/bridge-types.ts`). */
export type SettleReference = ivm.Reference<(entry: SettleEntry, ...settlements: Settlements) => unknown>

/** The settle entries of one run. */
export class SettleEntries {
  readonly #settle: SettleReference
  readonly #enter: (entry: Promise<unknown>) => void
  #lastUnobserved = false

  /** `enter` tracks an entry waited for: its failure is the run's to classify (a rejection, a limit). */
  constructor(settle: SettleReference, enter: (entry: Promise<unknown>) => void) {
    this.#settle = settle
    this.#enter = enter
  }

  /** Whether the last entry sent was not waited for (it may still be running). */
  get lastUnobserved(): boolean {
    return this.#lastUnobserved
  }

  /**
   * Sends `batch`; waits for the entry when `wait`. Its 1 + 3 × (at most 128) arguments never
   * reach a count isolated-vm 7.0.1 drops (255, 383…; see `runtime/call-outbox.ts`).
   */
  send(batch: Settlement[], wait: boolean): void {
    this.#lastUnobserved = !wait
    const args = settleArguments(wait ? 'waited' : 'unobserved', batch)
    if (wait) this.#enter(this.#settle.apply(undefined, args))
    else this.#settle.applyIgnored(undefined, args, UNOBSERVED)
  }

  /**
   * Runs the step on this thread (`applySync`), within `timeoutMs` of wall time: the isolate
   * worker's sequential steps (issue 12), whose calls then leave before this thread sleeps again.
   * Only for an isolate no other entry is running in (this thread would wait for it). The step's
   * calls, logs and ending reach the run's handlers while it runs (the runtime's synchronous
   * callbacks). isolated-vm's epilogue reports the step's first unhandled rejection at its end.
   * @throws what isolated-vm throws: that rejection, `Script execution timed out.`, or the
   *   isolate's disposal (its memory limit).
   */
  runNow(batch: Settlement[], timeoutMs: number): void {
    this.#lastUnobserved = false
    this.#settle.applySync(undefined, settleArguments('now', batch), { timeout: timeoutMs })
  }

  /**
   * The script has ended. If the last entry was not waited for, rejections of the steps since the
   * last entry waited for may still be listed: one entry waited for, with an empty batch (the
   * runtime ignores it and runs none of the script's code), reports them. It runs after the last
   * step, so a rejection after the `return` in the same step is reported too.
   */
  checkRejections(): void {
    if (!this.#lastUnobserved) return
    this.#lastUnobserved = false
    this.#enter(this.#settle.apply(undefined, ['waited']))
  }
}

/** `settle`'s arguments: the kind of entry, then the batch's triples flat (see `RuntimeControl.settle`). */
function settleArguments(entry: SettleEntry, batch: Settlement[]): [SettleEntry, ...Settlements] {
  // A sequential step's one answer: the array made at its size, not grown (issue 12: garbage a call).
  if (batch.length === 1) return [entry, batch[0]![0], batch[0]![1], batch[0]![2]]
  const args: [SettleEntry, ...Settlements] = [entry]
  for (const settlement of batch) args.push(settlement[0], settlement[1], settlement[2])
  return args
}
