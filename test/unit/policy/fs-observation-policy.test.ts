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

  it('S8 an existing file that was not read and is not UTF-8 (read_file refuses it) is refused with the way out: convert or remove it', () => {
    const notText = { ...gate(true), current: { hash: 'h1', mtimeMs: 0, utf8: false } }
    expect(checkWrite(notText, undefined)).toBe('/w/f.txt already exists and has not been read in this session, and read_file cannot read it: it is not UTF-8 text. Convert it to UTF-8 first (for example with bash: iconv -f LATIN1 -t UTF-8, or -f UTF-16 for UTF-16) and read it, or remove it to write it anew; then retry edit_file.')
    // Read once converted: the observation decides as for any file.
    expect(checkWrite(notText, { hash: 'h1', mtimeMs: 0 })).toBeUndefined()
  })

  it('S8 an existing file whose content changed since it was read is refused; same content passes even if touched', () => {
    expect(checkWrite(gate(true, 'h2'), { hash: 'h1', mtimeMs: 5 })).toMatch(/^\/w\/f.txt changed on disk since it was last read \(modified at 1970-01-01T00:00:00.000Z\)\. Read it again with read_file/)
    expect(checkWrite(gate(true, 'h1'), { hash: 'h1', mtimeMs: 5 })).toBeUndefined()
  })
})
