/**
 * Bounded state folders (S8): the journal folder and each agent's spill folder keep their newest
 * files within a count and a size; the oldest go first; links and what must stay are untouched.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { MAX_SPILL_FOLDERS, pruneSpills, SPILL_BOUNDS } from '../../../src/ptc/spill.ts'
import { pruneOldest } from '../../../src/workspace/prune-oldest.ts'

let dir: string
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ptc-prune-'))
})
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

/** `count` files `f000`… in `folder` (default the test's folder), each `bytes` long, oldest first (modification times a second apart). */
function files(count: number, bytes = 1, folder = dir): string[] {
  fs.mkdirSync(folder, { recursive: true })
  const made: string[] = []
  for (let index = 0; index < count; index++) {
    const file = path.join(folder, `f${String(index).padStart(3, '0')}`)
    fs.writeFileSync(file, 'x'.repeat(bytes))
    fs.utimesSync(file, 1_000_000 + index, 1_000_000 + index)
    made.push(file)
  }
  return made
}

describe('pruneOldest and the spill folder (S8, S9.7)', () => {
  it('S9.7 a spill folder keeps its newest SPILL_BOUNDS.maxFiles files: the oldest go, the one just written stays even when it is the oldest', () => {
    const root = path.join(dir, 'spill')
    const made = files(SPILL_BOUNDS.maxFiles + 5, 1, path.join(root, 'agent'))
    pruneSpills(root, [made[0]!])
    const left = fs.readdirSync(path.join(root, 'agent')).sort()
    expect(left).toHaveLength(SPILL_BOUNDS.maxFiles)
    expect(left[0]).toBe('f000') // kept: just written
    expect(left).not.toContain('f001')
    expect(left).not.toContain('f005')
    expect(left).toContain('f006')
  })

  it('S9.7 nothing outside the spill root is touched: written files not in an agent folder directly under it prune nothing', () => {
    const made = files(SPILL_BOUNDS.maxFiles + 5, 1, path.join(dir, 'elsewhere'))
    fs.mkdirSync(path.join(dir, 'spill'))
    pruneSpills(path.join(dir, 'spill'), [made[0]!])
    expect(fs.readdirSync(path.join(dir, 'elsewhere'))).toHaveLength(SPILL_BOUNDS.maxFiles + 5)
    pruneSpills(path.join(dir, 'missing'), [made[0]!])
    expect(fs.readdirSync(path.join(dir, 'elsewhere'))).toHaveLength(SPILL_BOUNDS.maxFiles + 5)
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

  it('S9.7 the spill folder keeps the newest MAX_SPILL_FOLDERS agent folders: older ones go whole, the writer\'s own stays, links are left alone', () => {
    const root = path.join(dir, 'spill')
    for (let index = 0; index < MAX_SPILL_FOLDERS + 5; index++) {
      const folder = path.join(root, `agent${String(index).padStart(3, '0')}`)
      fs.mkdirSync(folder, { recursive: true })
      fs.writeFileSync(path.join(folder, `${1_000 + index}-abc123-result.json`), 'x')
      fs.utimesSync(folder, 2_000_000 + index, 2_000_000 + index)
    }
    fs.symlinkSync(os.tmpdir(), path.join(root, 'link'))
    // A folder of the user's own under the spill root (a stateDir may be theirs) is never removed.
    fs.mkdirSync(path.join(root, 'user-notes'))
    fs.writeFileSync(path.join(root, 'user-notes', 'n.md'), 'mine')
    fs.utimesSync(path.join(root, 'user-notes'), 1_000_000, 1_000_000)
    // The writer is the oldest folder: it stays, with the newest 99 others.
    const written = path.join(root, 'agent000', '1000-abc123-result.json')
    pruneSpills(root, [written])
    const left = fs.readdirSync(root).sort()
    expect(left).toHaveLength(MAX_SPILL_FOLDERS + 2) // + the link and the user's folder
    expect(left).toContain('agent000')
    expect(left).toContain('link')
    expect(fs.readFileSync(path.join(root, 'user-notes', 'n.md'), 'utf8')).toBe('mine')
    expect(left).not.toContain('agent001')
    expect(left).not.toContain('agent005')
    expect(left).toContain('agent006')
    expect(fs.existsSync(written)).toBe(true)
  })
})
