/**
 * The `@openai/agents` package (the OpenAI Agents SDK), loaded once for
 * `ptc-runner/openai-agents`; a missing install is one line naming the package and the command
 * (see `loadPeer`). Every module of this adapter takes the SDK from here, never from a static
 * import, which would fail at link time with Node's own trace before this check could run.
 */
import { loadPeer } from '../load-peer.ts'

export const agents: typeof import('@openai/agents') = await loadPeer(() => import('@openai/agents'), {
  name: '@openai/agents',
  subpath: 'ptc-runner/openai-agents',
  label: 'the OpenAI Agents SDK, version 0.20',
  install: 'npm install @openai/agents@^0.20',
})
