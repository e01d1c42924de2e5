/**
 * The `ai` package (the Vercel AI SDK), loaded once for `ptc-runner/ai`; a missing install is one
 * line naming the package and the command (see `loadPeer`). Every module of this adapter takes
 * the SDK from here, never from a static `import ... from 'ai'`, which would fail at link time
 * with Node's own trace before this check could run.
 */
import { loadPeer } from '../load-peer.ts'

export const ai: typeof import('ai') = await loadPeer(() => import('ai'), {
  name: 'ai',
  subpath: 'ptc-runner/ai',
  label: 'the Vercel AI SDK, version 7',
  install: 'npm install ai@^7',
})
