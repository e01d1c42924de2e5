/**
 * One fresh process for `memory.bench.ts` (run with `--expose-gc`; issue 12: where the isolate
 * worker's memory goes): creates and disposes ISOLATES isolates one after another, with a full
 * GC every 500, and prints one JSON line `{ isolates, kbPerIsolate, firstMb, lastMb }`: the slope
 * of the process's RSS over the isolates from the 2,000th on (least squares over samples every
 * 1,000), i.e. the native memory each disposed isolate leaves behind. Argument 1: `raw` (a bare
 * isolated-vm isolate with a context and one script run) or `prepared` (this product's
 * `prepareIsolate`: the runtime installed, host callbacks bound); argument 2: ISOLATES.
 */
import ivm from 'isolated-vm'
import { prepareIsolate } from '../src/ptc/isolate/isolate-pool.ts'

const kind = process.argv[2] === 'prepared' ? 'prepared' : 'raw'
const isolates = Number(process.argv[3] ?? 8_000)
const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined) throw new Error('isolate-residue-child.ts needs node --expose-gc')

const samples: { at: number; mb: number }[] = []
for (let index = 1; index <= isolates; index++) {
  if (kind === 'raw') {
    const isolate = new ivm.Isolate({ memoryLimit: 128 })
    const context = isolate.createContextSync()
    isolate.compileScriptSync('1 + 1').runSync(context)
    isolate.dispose()
  } else {
    const prepared = await prepareIsolate()
    prepared.isolate.dispose()
  }
  if (index % 500 === 0) {
    await new Promise((resolve) => setImmediate(resolve))
    gc()
    gc()
    if (index % 1_000 === 0) samples.push({ at: index, mb: process.memoryUsage().rss / 2 ** 20 })
  }
}
const fitted = samples.filter((sample) => sample.at >= 2_000)
const meanAt = fitted.reduce((sum, sample) => sum + sample.at, 0) / fitted.length
const meanMb = fitted.reduce((sum, sample) => sum + sample.mb, 0) / fitted.length
const slope = fitted.reduce((sum, sample) => sum + (sample.at - meanAt) * (sample.mb - meanMb), 0) / fitted.reduce((sum, sample) => sum + (sample.at - meanAt) ** 2, 0)
process.stdout.write(`${JSON.stringify({ isolates, kbPerIsolate: slope * 1024, firstMb: samples[0]!.mb, lastMb: samples.at(-1)!.mb })}\n`)
