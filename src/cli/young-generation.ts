/**
 * A long-lived host process's young generation kept at its initial size (issue 12: memory flat).
 * V8 doubles the young generation (to 128 MB in a test on Node 24, 64-bit) whenever enough bytes
 * survived scavenges since it last grew, which a server's steady stream of runs always reaches
 * in time: the RSS of a `ptc serve` then stepped up by tens of MB every few thousand runs although
 * its old space and every retained object stayed the same (bench/memory.bench.ts). Start-up flags
 * (`--max-semi-space-size`) cannot be set from inside a process, but V8 reads
 * `--semi-space-growth-factor` each time it would grow, so setting it to 1 at run time stops the
 * growth (the young generation stays at its initial 1 MB semi-spaces; a scavenge then costs a
 * fraction of a millisecond every MB allocated). The isolate worker caps its own with
 * `--max-semi-space-size` (`isolate/worker-start.ts`).
 */
import { setFlagsFromString } from 'node:v8'

/**
 * Stops this process's young generation from growing (see the module comment). Process-wide and
 * permanent; idempotent. `ptc serve` calls it at start; an embedding application can do the same
 * (or start Node with `--max-semi-space-size=4`).
 */
export function keepYoungGenerationSmall(): void {
  setFlagsFromString('--semi-space-growth-factor=1')
}
