#!/usr/bin/env node
// Adds this repository's harness peers (ours-floor, ours-floor-inline: the floors of issue 12's
// rows) to a writable copy of the peer harness (`../shared/bench-peers`, copied as its README
// says):
//
//   node bench/peers/install.mjs /tmp/bench-peers
//   cd /tmp/bench-peers && source env.sh
//   PRODUCT_DIR=/path/to/ptc-runner node run.mjs ours ours-floor ours-inline ours-floor-inline isolated-vm-raw --repeat 3
//
// Copies the adapters into <harness>/adapters/ and adds their names to run.mjs's ALL_PEERS.
// Running it again changes nothing. Exits 1 with the reason when <harness> is not a writable
// copy of the harness (the shared original is read-only: it is never changed, even by root).
import { chmodSync, copyFileSync, existsSync, readFileSync, realpathSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const FLOOR_PEERS = ['ours-floor', 'ours-floor-inline'];

/** Whether no one may write `file` by its mode bits (root ignores them, so `access` cannot tell). */
const readOnly = (file) => (statSync(file).mode & 0o222) === 0;

/**
 * Installs {@link FLOOR_PEERS} into the harness at `harness`; returns the names it added to
 * ALL_PEERS (empty when they were there already). run.mjs is replaced whole (a temporary file
 * renamed over it, its mode kept): never half-written.
 * @throws Error when `harness` has no run.mjs or adapters folder, is read-only, or its run.mjs has
 * no ALL_PEERS list of quoted names.
 */
export function installFloorPeers(harness) {
  const runPath = path.join(harness, 'run.mjs');
  const adapters = path.join(harness, 'adapters');
  if (!existsSync(runPath) || !existsSync(adapters)) throw new Error(`${harness} is not a copy of the peer harness (no run.mjs or adapters/): copy ../shared/bench-peers first`);
  if (readOnly(runPath) || readOnly(adapters)) throw new Error(`${harness} is read-only (the shared original?): copy it to a writable place first (cp -r ../shared/bench-peers /tmp/bench-peers) and install there`);
  const source = readFileSync(runPath, 'utf8');
  const list = /export const ALL_PEERS = \[([^\]]*)\];/.exec(source);
  if (!list) throw new Error(`${runPath} has no "export const ALL_PEERS = [...]" line to add the peers to`);
  const names = [...list[1].matchAll(/(['"])([^'"]+)\1/g)].map((match) => match[2]);
  if (names.length === 0 && list[1].trim() !== '') throw new Error(`${runPath}: its ALL_PEERS list has no quoted names that this script can read; add ${FLOOR_PEERS.join(', ')} to it by hand`);
  for (const peer of FLOOR_PEERS) copyFileSync(path.join(import.meta.dirname, `${peer}.mjs`), path.join(adapters, `${peer}.mjs`));
  const added = FLOOR_PEERS.filter((peer) => !names.includes(peer));
  if (added.length > 0) {
    const updated = `export const ALL_PEERS = [${[...names, ...added].map((name) => `'${name}'`).join(', ')}];`;
    const temporary = `${runPath}.${process.pid}.tmp`;
    writeFileSync(temporary, source.replace(list[0], updated));
    chmodSync(temporary, statSync(runPath).mode & 0o7777);
    renameSync(temporary, runPath);
  }
  return added;
}

if (process.argv[1] !== undefined && realpathSync(import.meta.filename) === realpathSync(process.argv[1])) {
  const harness = process.argv[2];
  if (!harness) {
    console.error('usage: node bench/peers/install.mjs <writable copy of the peer harness>');
    process.exit(2);
  }
  try {
    const added = installFloorPeers(path.resolve(harness));
    console.log(added.length > 0 ? `added ${added.join(', ')} to ${harness}` : `${harness} already has ${FLOOR_PEERS.join(', ')} (adapters refreshed)`);
  } catch (error) {
    console.error(`install: ${error.message}`);
    process.exit(1);
  }
}
