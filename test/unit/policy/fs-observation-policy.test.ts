import { describe, expect, it } from 'vitest'
import { checkWrite } from '../../../src/policy/fs-observation-policy.ts'

describe('fs-observation-policy checkWrite (pure)', () => {
  const gate = (exists: boolean, hash = 'h1') => ({ agent: 'a', tool: 'edit_file', path: '/w/f.txt', exists, ...(exists && { current: { hash, mtimeMs: 0 } }) })

  it('S8 a brand-new file needs no prior read', () => {
    expect(checkWrite(gate(false), undefined)).toBeUndefined()
  })

  it('S8 an existing file that was not read is refused with a reason to read it', () => {
    expect(checkWrite(gate(true), undefined)).toBe('/w/f.txt already exists and has not been read in this session. Read it with read_file first, then retry edit_file.')
  })

  it('S8 an existing file whose content changed since it was read is refused; same content passes even if touched', () => {
    expect(checkWrite(gate(true, 'h2'), { hash: 'h1', mtimeMs: 5 })).toMatch(/^\/w\/f.txt changed on disk since it was last read \(modified at 1970-01-01T00:00:00.000Z\)\. Read it again with read_file/)
    expect(checkWrite(gate(true, 'h1'), { hash: 'h1', mtimeMs: 5 })).toBeUndefined()
  })
})
