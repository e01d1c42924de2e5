// ours-floor-inline: the floor of the product's `isolation: 'inline'`, for the peer harness
// (issue 12); see ours-floor.mjs and `bench/peer-floor.ts`.
import { createFloorWith, makeFloorMeta } from './ours-floor.mjs';

export const meta = makeFloorMeta('inline');

export async function createRunner(args = {}) {
  return createFloorWith(args, 'inline');
}
