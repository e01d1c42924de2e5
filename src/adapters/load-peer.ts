/**
 * Loading an adapter's optional peer package (issue 15): `ptc-runner/ai` needs `ai`,
 * `ptc-runner/openai-agents` needs `@openai/agents`, and neither is a dependency of ptc-runner,
 * so `import 'ptc-runner'` never loads them. An adapter's entry awaits {@link loadPeer} before
 * anything of it runs; when the package is missing, the import fails with one line that names
 * the package and the command that installs it, instead of Node's resolution trace.
 */
import { PtcError } from '../index.ts'

/** Which package an adapter needs, and how a user installs it. */
export interface PeerPackage {
  /** The package name as imported, e.g. `ai`. */
  name: string
  /** The adapter's subpath, e.g. `ptc-runner/ai`. */
  subpath: string
  /** What it is, for the message, e.g. `the Vercel AI SDK, version 7`. */
  label: string
  /** The install command, e.g. `npm install ai@^7`. */
  install: string
}

/**
 * `load()` (a dynamic `import()` of the peer), or, when the peer itself cannot be found, a
 * `PtcError` (`peer-missing`) whose message is one line: `ptc-runner/ai needs the package "ai"
 * (the Vercel AI SDK, version 7), which is not installed: npm install ai@^7`.
 * @throws PtcError `peer-missing` when the package is not installed; whatever else `load()`
 *   throws (a broken install, a module of the peer that fails) unchanged.
 */
export async function loadPeer<T>(load: () => Promise<T>, peer: PeerPackage): Promise<T> {
  try {
    return await load()
  } catch (error) {
    if (!isMissing(error, peer.name)) throw error
    const message = `${peer.subpath} needs the package "${peer.name}" (${peer.label}), which is not installed: ${peer.install}`
    const missing = new PtcError('peer-missing', message, { details: { package: peer.name, install: peer.install } })
    // The resolution trace adds nothing a user can act on; the line says what to do.
    missing.stack = `${missing.name}: ${message}`
    throw missing
  }
}

/** True when `error` is Node's "cannot find package `name`" (not a missing file inside it). */
function isMissing(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown }
  if (code !== 'ERR_MODULE_NOT_FOUND' || typeof message !== 'string') return false
  return message.includes(`package '${name}'`) || message.includes(`'${name}' imported from`)
}
