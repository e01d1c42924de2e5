/**
 * The runtime bundle cache's fingerprint (issue 12: the isolate worker ready fast, without
 * `node:crypto`): stable for equal contents, different for any one-byte change.
 */
import { describe, expect, it } from 'vitest'
import { contentFingerprint } from '../../../src/ptc/isolate/content-fingerprint.ts'

describe('contentFingerprint (issue 12)', () => {
  it('S9.1 equal contents give equal fingerprints, a string as its UTF-8 bytes', () => {
    const text = 'export const café = 1\n'
    expect(contentFingerprint(text)).toBe(contentFingerprint(Buffer.from(text, 'utf8')))
    expect(contentFingerprint(text)).toMatch(/^[0-9a-f]+-[0-9a-f]{16}$/)
    expect(contentFingerprint('')).toBe(contentFingerprint(new Uint8Array()))
  })

  it('S9.1 a change of any one byte, or of the length, changes the fingerprint', () => {
    const base = Buffer.from('return installRuntime\n'.repeat(50))
    const seen = new Set([contentFingerprint(base)])
    for (let i = 0; i < base.length; i += 7) {
      const changed = Buffer.from(base)
      changed[i] = changed[i]! ^ 1
      seen.add(contentFingerprint(changed))
    }
    seen.add(contentFingerprint(base.subarray(1)))
    seen.add(contentFingerprint(Buffer.concat([base, Buffer.from([0])])))
    expect(seen.size).toBe(Math.ceil(base.length / 7) + 3)
  })
})
