// ours-floor: the floor of the product's default design (`isolation: 'process'`), for the peer
// harness (issue 12). Installed into a copy of the harness by this repository's
// `bench/peers/install.mjs`; reads the product from env PRODUCT_DIR, as the `ours` adapter does.
//
// A real host's `run_code` (pipeline, compile cache, result checks) whose isolate step is raw
// isolated-vm as `isolated-vm-raw` runs it, in a child process behind the product's worker
// channel; every call from the script passes the run's bridge, execution gate and whole pipeline.
// The product's own runtime, worker and supervisor are left out: what the product adds to this
// is what it could still save. A floor of W1, W2 and W4, not of W3 (see `bench/peer-floor.ts`).
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export function makeFloorMeta(isolation) {
  return {
    name: isolation === 'inline' ? 'ours-floor-inline' : 'ours-floor',
    package: 'ptc-runner from $PRODUCT_DIR: bench/peer-floor.ts (not a product; the floor of its design)',
    isolation:
      isolation === 'inline'
        ? 'raw isolated-vm in this process (new isolate per run), behind the product host\'s run_code and pipeline'
        : 'raw isolated-vm in a child process (new isolate per run, driven from its main thread) behind the product\'s worker channel, run_code and pipeline',
    perRun: "host.ctx.tools.execute(run_code, {typecheck:false}) with the isolate step replaced by raw isolated-vm; each call through the run's bridge, gate and pipeline",
    wired: true,
    typecheck: false,
    journal: false,
  };
}

export const meta = makeFloorMeta('process');

export async function createFloorWith({ tools }, isolation) {
  const dir = process.env.PRODUCT_DIR;
  if (!dir) throw new Error('ours-floor: set env PRODUCT_DIR to the product checkout');
  const { createFloorRunner } = await import(pathToFileURL(path.join(dir, 'bench/peer-floor.ts')).href);
  return createFloorRunner(tools, isolation);
}

export async function createRunner(args = {}) {
  return createFloorWith(args, 'process');
}
