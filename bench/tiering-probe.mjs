// After how many calls V8 runs a function as TurboFan code, on this Node (issue 12: why the
// harness's W2 counts runs in which the host's own code is still Maglev code).
//
//   node --allow-natives-syntax bench/tiering-probe.mjs
//
// Prints the first call after which %GetOptimizationStatus reports TurboFan code (bit 64) for a
// one-line async function called once an event-loop turn, as a call from code calls the host's
// functions, in 5 fresh processes, and their median. Node 24.22 (V8 13.6), 2026-12-05: about
// 15,000 calls (15,054-16,188), five times --invocation-count-for-turbofan (3,000; with 600,
// about 2,300). Without the turn between calls, the concurrent compile lands later still.
import { execFileSync } from 'node:child_process';

const TURBOFANNED = 64;
const LIMIT = 200_000;

async function oneLine(x) { return x + 1; }

async function probe() {
  for (let i = 1; i <= LIMIT; i++) {
    await oneLine(i);
    // One turn of the event loop a call, as a call from code takes: compiling finishes in between.
    await new Promise(setImmediate);
    if (%GetOptimizationStatus(oneLine) & TURBOFANNED) return i;
  }
  return null;
}

if (process.argv[2] === 'child') {
  console.log(JSON.stringify(await probe()));
} else {
  const runs = Array.from({ length: 5 }, () => JSON.parse(execFileSync(process.execPath, ['--allow-natives-syntax', import.meta.filename, 'child'], { encoding: 'utf8' })));
  const median = [...runs].sort((a, b) => (a ?? Infinity) - (b ?? Infinity))[2];
  console.log(`node ${process.version}: a one-line async function runs as TurboFan code after ${median ?? `more than ${LIMIT}`} calls (median of 5 processes: ${runs.join(', ')})`);
}
