import { describe, expect, it } from 'vitest'
import { firstNotUtf8Line, utf16Bom } from '../../../src/builtin/text-encoding.ts'

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

  it('agrees with a line-by-line check on random mixes of newlines, ASCII and (cut) multi-byte sequences', () => {
    const pieces = [[0x0a], [0x61], [0xc3, 0xa9], [0xc3], [0xe6, 0xbc, 0xa2], [0xe6, 0xbc], [0xf0, 0x9f, 0x98, 0x80], [0xff], [0xed, 0xa0, 0x80]]
    let seed = 7
    const random = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n)
    for (let i = 0; i < 5000; i++) {
      const bytes = Buffer.from(Array.from({ length: random(12) }, () => pieces[random(pieces.length)]!).flat())
      const lines = bytes.toString('latin1').split('\n').map((line) => Buffer.from(line, 'latin1'))
      const bad = lines.findIndex((line) => line.toString('utf8') !== line.toString('utf8', 0) || !Buffer.from(line.toString('utf8')).equals(line))
      expect(firstNotUtf8Line(bytes), bytes.toString('hex')).toBe(bad === -1 ? undefined : bad + 1)
    }
  })

  it('finds the last line of a file of 10 MiB of empty lines (bisection; a line-by-line scan takes half a second)', () => {
    const bytes = Buffer.alloc(10 * 1024 * 1024, 0x0a)
    bytes[bytes.length - 1] = 0xff
    expect(firstNotUtf8Line(bytes)).toBe(bytes.length)
  })
})

describe('utf16Bom', () => {
  it('names the byte order of a UTF-16 byte-order mark and nothing else', () => {
    expect(utf16Bom(Buffer.from([0xff, 0xfe, 0x61, 0x00]))).toBe('UTF-16LE')
    expect(utf16Bom(Buffer.from([0xfe, 0xff, 0x00, 0x61]))).toBe('UTF-16BE')
    expect(utf16Bom(Buffer.from('\ufeffa'))).toBeUndefined()
    expect(utf16Bom(Buffer.from([0xff]))).toBeUndefined()
  })
})
