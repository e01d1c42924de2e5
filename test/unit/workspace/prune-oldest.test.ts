/**
 * Bounded state folders (S8): the journal folder and each agent's spill folder keep their newest
 * files within a count and a size; the oldest go first; links and what must stay are untouched.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { pruneSpills, SPILL_BOUNDS } from '../../../src/ptc/spill.ts'
import { pruneOldest } from '../../../src/workspace/prune-oldest.ts'

let dir: string
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-prune-'))
})
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

/** `count` files `f000`…, each `bytes` long, oldest first (modification times a second apart). */
function files(count: number, bytes = 1): string[] {
  const made: string[] = []
  for (let index = 0; index < count; index++) {
    const file = path.join(dir, `f${String(index).padStart(3, '0')}`)
    fs.writeFileSync(file, 'x'.repeat(bytes))
    fs.utimesSync(file, 1_000_000 + index, 1_000_000 + index)
    made.push(file)
  }
  return made
}

describe('pruneOldest and the spill folder (S8, S9.7)', () => {
  it('S9.7 a spill folder keeps its newest SPILL_BOUNDS.maxFiles files: the oldest go, the one just written stays even when it is the oldest', () => {
    const made = files(SPILL_BOUNDS.maxFiles + 5)
    pruneSpills([made[0]!])
    const left = fs.readdirSync(dir).sort()
    expect(left).toHaveLength(SPILL_BOUNDS.maxFiles)
    expect(left[0]).toBe('f000') // kept: just written
    expect(left).not.toContain('f001')
    expect(left).not.toContain('f005')
    expect(left).toContain('f006')
  })

  it('S8 the size bound keeps the newest files that fit and deletes every older one; links and unaccepted names are never touched', () => {
    files(5, 100)
    fs.symlinkSync(path.join(dir, 'f000'), path.join(dir, 'link'))
    fs.writeFileSync(path.join(dir, 'other.txt'), 'y'.repeat(1000))
    const deleted = pruneOldest(dir, { maxBytes: 250 }, { accept: (name) => name.startsWith('f') })
    expect(deleted.map((file) => path.basename(file))).toEqual(['f000', 'f001', 'f002'])
    expect(fs.readdirSync(dir).sort()).toEqual(['f003', 'f004', 'link', 'other.txt'])
    expect(pruneOldest(path.join(dir, 'missing'), { maxFiles: 1 })).toEqual([])
  })
})
