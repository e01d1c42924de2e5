import { describe, expect, it } from 'vitest'
import { OutputRing } from '../../../src/jobs/output-ring.ts'

describe('OutputRing (S10 bounded job output)', () => {
  it('keeps everything under the capacity and reads by cursor', () => {
    const ring = new OutputRing(100)
    ring.write('hello ')
    ring.write('world')
    expect(ring.read()).toEqual({ text: 'hello world', offset: 0, nextOffset: 11, missedBytes: 0 })
    expect(ring.read(6)).toEqual({ text: 'world', offset: 6, nextOffset: 11, missedBytes: 0 })
    expect(ring.read(11)).toEqual({ text: '', offset: 11, nextOffset: 11, missedBytes: 0 })
    expect(ring.read(500)).toEqual({ text: '', offset: 11, nextOffset: 11, missedBytes: 0 })
    expect([ring.totalBytes, ring.droppedBytes]).toEqual([11, 0])
  })

  it('never keeps more than the capacity; counts total and dropped bytes', () => {
    const ring = new OutputRing(10)
    for (let i = 0; i < 10; i++) ring.write(`${i}${i}${i}\n`)
    expect(ring.totalBytes).toBe(40)
    expect(ring.droppedBytes).toBe(30)
    expect(ring.read()).toEqual({ text: '7\n888\n999\n', offset: 30, nextOffset: 40, missedBytes: 30 })
  })

  it('a cursor inside the dropped region starts at the oldest kept byte and reports the gap', () => {
    const ring = new OutputRing(4)
    ring.write('abcdefgh')
    expect(ring.read(2)).toEqual({ text: 'efgh', offset: 4, nextOffset: 8, missedBytes: 2 })
    ring.write('ij')
    expect(ring.read(8)).toEqual({ text: 'ij', offset: 8, nextOffset: 10, missedBytes: 0 })
  })

  it('a single write larger than the capacity keeps its tail', () => {
    const ring = new OutputRing(5)
    ring.write('xy')
    ring.write('0123456789')
    expect(ring.read()).toMatchObject({ text: '56789', offset: 7 })
    expect(ring.droppedBytes).toBe(7)
  })

  it('drops whole UTF-8 characters, never half of one', () => {
    const ring = new OutputRing(5)
    ring.write('ééé') // 6 bytes
    expect(ring.read().text).toBe('éé')
    expect(ring.droppedBytes).toBe(2)
    ring.write('😀') // 4 bytes
    expect(ring.read().text).toBe('😀')
    expect(ring.totalBytes).toBe(10)
    expect(ring.droppedBytes).toBe(6)
  })

  it('maxBytes bounds a read at a character boundary and the cursor resumes exactly', () => {
    const ring = new OutputRing(100)
    ring.write('aé😀b')
    const first = ring.read(0, 4)
    expect(first).toMatchObject({ text: 'aé', nextOffset: 3 })
    const second = ring.read(first.nextOffset, 4)
    expect(second).toMatchObject({ text: '😀', nextOffset: 7 })
    expect(ring.read(second.nextOffset, 4)).toMatchObject({ text: 'b', nextOffset: 8 })
  })

  it('a made-up cursor inside a character skips to the next boundary; junk cursors mean 0', () => {
    const ring = new OutputRing(100)
    ring.write('é!')
    expect(ring.read(1)).toMatchObject({ text: '!', offset: 2 })
    expect(ring.read(-5).text).toBe('é!')
    expect(ring.read(Number.NaN).text).toBe('é!')
    expect(ring.read(1.5).text).toBe('é!')
  })

  it('many small writes stay bounded', () => {
    const ring = new OutputRing(1000)
    for (let i = 0; i < 100_000; i++) ring.write('x')
    expect(ring.read().text.length).toBe(1000)
    expect(ring.droppedBytes).toBe(99_000)
  })

  it('rejects a capacity that is not a positive whole number', () => {
    expect(() => new OutputRing(0)).toThrow(RangeError)
    expect(() => new OutputRing(1.5)).toThrow(RangeError)
  })
})
