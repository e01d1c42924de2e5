import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

// STYLE "one concept per file": a source file past 300 lines is usually two concepts. Checked over
// everything that ships: src/, runtime/ (inside the isolate) and typegen/.
const REPO = path.resolve(import.meta.dirname, '../../..')
const MAX_LINES = 300

describe('source files stay small', () => {
  it(`no file in src/, runtime/ or typegen/ is over ${MAX_LINES} lines`, () => {
    const over: string[] = []
    let seen = 0
    for (const folder of ['src', 'runtime', 'typegen']) {
      for (const name of readdirSync(path.join(REPO, folder), { recursive: true, encoding: 'utf8' })) {
        if (!name.endsWith('.ts')) continue
        seen++
        const lines = readFileSync(path.join(REPO, folder, name), 'utf8').split('\n').length - 1
        if (lines > MAX_LINES) over.push(`${folder}/${name}: ${lines} lines`)
      }
    }
    expect(seen).toBeGreaterThan(50)
    expect(over).toEqual([])
  })
})
