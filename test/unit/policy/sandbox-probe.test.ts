/**
 * The bwrap availability probe on a loaded machine (issue 14, S8): a probe that did not answer
 * within its budget refuses that call but is not cached, so a slow moment does not leave the
 * service without a sandbox for its whole life.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Context } from 'cordis'
import { describe, expect, it } from 'vitest'
import { Sandbox } from '../../../src/policy/sandbox.ts'
import { SandboxPolicy } from '../../../src/policy/sandbox-policy.ts'

describe('Sandbox probe (S8, issue 14)', () => {
  it('S8 a probe that timed out says so (not "not installed") and is not the answer for good: once bwrap answers, the sandbox is available', async () => {
    const folder = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-probe-')))
    const gate = path.join(folder, 'open')
    const bwrap = path.join(folder, 'bwrap')
    // A bwrap that answers only once the gate exists: until then every probe runs out of time.
    fs.writeFileSync(bwrap, `#!/bin/sh\nwhile [ ! -e '${gate}' ]; do sleep 0.05; done\nexec bwrap "$@"\n`, { mode: 0o755 })
    const root = new Context()
    try {
      await root.plugin(SandboxPolicy, { workspaceRoots: [folder], mode: 'workspace-write' })
      await root.plugin(Sandbox, { bwrapPath: bwrap, probeTimeoutMs: 300 })
      expect(await root.sandbox.probe()).toMatchObject({ available: false, cause: 'timed out after 300 ms', timedOut: true })
      // It says the probe timed out, not that bubblewrap is not installed.
      await expect(root.sandbox.wrap({ argv: ['true'], cwd: folder })).rejects.toThrow(
        `the bubblewrap (bwrap) sandbox probe timed out after 300 ms (${bwrap} did not answer: the machine may be busy), so this command was refused: try again; the next sandboxed command probes again`,
      )
      fs.writeFileSync(gate, '')
      expect(await root.sandbox.probe()).toMatchObject({ available: true })
      expect((await root.sandbox.wrap({ argv: ['true'], cwd: folder })).enforced.backend).toBe('bwrap')
    } finally {
      root.registry.delete(Sandbox)
      fs.rmSync(folder, { recursive: true, force: true })
    }
  }, 60_000)
})
