/**
 * A Node.js older than 24 on this machine, for the tests of what an older Node is told (issue 14):
 * Debian's `/usr/bin/node` is 20 on these machines. `undefined` where there is none.
 */
import { execFileSync } from 'node:child_process'

function findOldNode(): string | undefined {
  for (const candidate of ['/usr/bin/node', '/usr/local/bin/node', '/bin/node']) {
    try {
      const major = Number(execFileSync(candidate, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).trim())
      if (major < 24) return candidate
    } catch {
      // not there
    }
  }
  return undefined
}

/** The path of a Node.js older than 24, or `undefined`. */
export const OLD_NODE = findOldNode()
