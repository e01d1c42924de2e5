// After how many calls V8 runs a function as TurboFan code, on this Node (issue 12: why the
// harness's W2 counts runs in which the host's own code is still Maglev code).
//
//   node bench/tiering-probe.mjs
//
// Prints the first call after which %GetOptimizationStatus reports TurboFan code (bit 64) for a
// one-line async function called once an event-loop turn, as a call from code calls the host's
// functions, in 5 fresh processes (started with --allow-natives-syntax), and their median. Node
// 24.22 (V8 13.6), 2026-12-05: about 15,000 calls (15,054-16,188), 4-5 times
// --invocation-count-for-turbofan (3,000; with 600, about 2,300): V8's budget scales with a
// function's bytecode and restarts when its type feedback changes, so this is a lower bound for
// the host's larger functions, consistent with --trace-opt's run 6 of 13 for the pipeline's.
// Without the turn between calls the concurrent compile lands later still (about 32,000).
import { execFileSync } from 'node:child_process';

const LIMIT = 200_000;

// The probe's source, compiled in the child, which has the natives syntax (`%`) this file cannot contain.
const PROBE = `
const TURBOFANNED = 64;
async function oneLine(x) { return x + 1; }
for (let i = 1; i <= ${LIMIT}; i++) {
  await oneLine(i);
  // One turn of the event loop a call, as a call from code takes: compiling finishes in between.
  await new Promise(setImmediate);
  if (%GetOptimizationStatus(oneLine) & TURBOFANNED) { console.log(i); process.exit(0); }
}
console.log('null');
`;

const runs = Array.from({ length: 5 }, () => JSON.parse(execFileSync(process.execPath, ['--allow-natives-syntax', '--input-type=module', '-e', PROBE], { encoding: 'utf8' })));
const median = [...runs].sort((a, b) => (a ?? Infinity) - (b ?? Infinity))[2];
console.log(`node ${process.version}: a one-line async function runs as TurboFan code after ${median ?? `more than ${LIMIT}`} calls (median of 5 processes: ${runs.join(', ')})`);
