#!/usr/bin/env node
// Adds this repository's harness peers (ours-floor, ours-floor-inline: the floors of issue 12's
// rows) to a writable copy of the peer harness (`../shared/bench-peers`, copied as its README
// says):
//
//   node bench/peers/install.mjs /tmp/bench-peers
//   cd /tmp/bench-peers && source env.sh
//   PRODUCT_DIR=$PWD_OF_THIS_REPO node run.mjs ours ours-floor ours-inline ours-floor-inline isolated-vm-raw --repeat 3
//
// Copies the adapters into <harness>/adapters/ and adds their names to run.mjs's ALL_PEERS.
// Running it again changes nothing. Exits 1 with the reason when <harness> is not the harness.
import { copyFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const FLOOR_PEERS = ['ours-floor', 'ours-floor-inline'];

/**
 * Installs {@link FLOOR_PEERS} into the harness at `harness`; returns the names it added to
 * ALL_PEERS (empty when they were there already).
 * @throws Error when `harness` has no run.mjs with an ALL_PEERS list or no adapters folder.
 */
export function installFloorPeers(harness) {
  const runPath = path.join(harness, 'run.mjs');
  const adapters = path.join(harness, 'adapters');
  if (!existsSync(runPath) || !existsSync(adapters)) throw new Error(`${harness} is not a copy of the peer harness (no run.mjs or adapters/): copy ../shared/bench-peers first`);
  const source = readFileSync(runPath, 'utf8');
  const list = /export const ALL_PEERS = \[([^\]]*)\];/.exec(source);
  if (!list) throw new Error(`${runPath} has no "export const ALL_PEERS = [...]" line to add the peers to`);
  for (const peer of FLOOR_PEERS) copyFileSync(path.join(import.meta.dirname, `${peer}.mjs`), path.join(adapters, `${peer}.mjs`));
  const names = [...list[1].matchAll(/'([^']+)'/g)].map((match) => match[1]);
  const added = FLOOR_PEERS.filter((peer) => !names.includes(peer));
  if (added.length > 0) {
    const updated = `export const ALL_PEERS = [${[...names, ...added].map((name) => `'${name}'`).join(', ')}];`;
    // Written whole to a temporary file and renamed over run.mjs: never a half-written harness.
    const temporary = `${runPath}.${process.pid}.tmp`;
    writeFileSync(temporary, source.replace(list[0], updated));
    renameSync(temporary, runPath);
  }
  return added;
}

if (import.meta.filename === path.resolve(process.argv[1] ?? '')) {
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
