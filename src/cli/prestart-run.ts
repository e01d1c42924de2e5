/**
 * `ptc run`'s isolate worker, started as early as the process can (issue 12: start-up; S9.1).
 * The bin script calls {@link prestartRun} with the command line before it imports the CLI, so
 * the worker's start (Node without its start-up snapshot, isolated-vm, the first isolate: the
 * longest part of `ptc run`) overlaps the CLI's own loading; `commands/run.ts` derives the same
 * options with {@link runMemoryMb} and {@link prestartRunWorker}, and the host adopts the worker
 * (`worker-start.ts`). A command line that turns out to be a usage error leaves the worker
 * unadopted, and it is killed when the process exits.
 */
import { parseArgs } from 'node:util'
import { MAX_MEMORY_MB, RUN_LIMIT_MINIMUMS } from '../ptc/isolate/run-limits.ts'
import { isolateWorkerOptions, prestartIsolateWorker } from '../ptc/isolate/worker-start.ts'
import { watchEarlyInterrupt } from './early-interrupt.ts'
import { positiveInt } from './host-flags.ts'

/**
 * `--memory-mb`'s value: the isolate heap limit in MB, from 8 to `MAX_MEMORY_MB`; undefined when
 * the flag is absent.
 * @throws UsageError naming the flag and the range, for any other value.
 */
export function runMemoryMb(text: string | undefined): number | undefined {
  return positiveInt(text, 'memory-mb', RUN_LIMIT_MINIMUMS.memoryMb, MAX_MEMORY_MB)
}

/**
 * Starts the worker a `ptc run` host with heap limit `memoryMb` (MB; undefined: the default)
 * adopts. Returns its pid (`undefined` when it could not be forked); a second call does nothing.
 */
export function prestartRunWorker(memoryMb: number | undefined): number | undefined {
  return prestartIsolateWorker(isolateWorkerOptions({ limits: { memoryMb } }))
}

/**
 * For `ptc run ARGS` (`args`: the arguments after `run`): makes a Ctrl-C that comes before the run
 * takes the signal end the process as a cancelled run (`early-interrupt.ts`), and starts the worker
 * its host will adopt, unless the arguments ask for help or give a `--memory-mb` that `ptc run` refuses (the
 * dispatcher reports those). Never throws. Returns the worker's pid, or undefined when none started.
 */
export function prestartRun(args: readonly string[]): number | undefined {
  let memoryMb: number | undefined
  try {
    // Lenient: only these flags matter here; the dispatcher checks everything else.
    const { values } = parseArgs({ args: [...args], options: { 'memory-mb': { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } }, strict: false, allowPositionals: true })
    watchEarlyInterrupt(values.json === true)
    if (values.help === true) return undefined
    const text = values['memory-mb']
    if (typeof text === 'boolean') return undefined // The flag without its value.
    memoryMb = runMemoryMb(text)
  } catch {
    return undefined
  }
  return prestartRunWorker(memoryMb)
}
