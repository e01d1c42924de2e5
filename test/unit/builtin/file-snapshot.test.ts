import { describe, expect, it } from 'vitest'
import { firstNotUtf8Line } from '../../../src/builtin/file-snapshot.ts'

describe('firstNotUtf8Line (S9.6: the file tools return text that writes back unchanged)', () => {
  it('is undefined for UTF-8, multi-byte characters, a byte order mark and an empty file', () => {
    expect(firstNotUtf8Line(Buffer.from(''))).toBeUndefined()
    expect(firstNotUtf8Line(Buffer.from('\ufeffcafé\n漢字\r\n😀'))).toBeUndefined()
  })

  it('names the first line holding bytes that are not UTF-8', () => {
    expect(firstNotUtf8Line(Buffer.from('ok\nok\ncaf\xe9\nbad \xff\n', 'latin1'))).toBe(3)
    expect(firstNotUtf8Line(Buffer.from([0xff]))).toBe(1)
    // A sequence cut off at the end of a line, and one cut off at the end of the file.
    expect(firstNotUtf8Line(Buffer.from([0x61, 0x0a, 0xc3, 0x0a, 0x62]))).toBe(2)
    expect(firstNotUtf8Line(Buffer.from([0x61, 0x0a, 0x62, 0x0a, 0xe6, 0xbc]))).toBe(3)
    // An encoded surrogate (CESU-8) is not UTF-8 either.
    expect(firstNotUtf8Line(Buffer.from([0xed, 0xa0, 0x80]))).toBe(1)
  })
})
