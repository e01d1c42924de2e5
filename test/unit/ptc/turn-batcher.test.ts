/**
 * TurnBatcher (issue 12): items pushed in one event-loop turn are delivered together at its end,
 * in push order, and a batch that reaches its limit (MAX_BATCH_ITEMS by default) is delivered at
 * once, so the receiver of a burst starts on its first part while the rest is produced.
 */
import { setImmediate as turnEnd } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { MAX_BATCH_ITEMS, TurnBatcher } from '../../../src/ptc/isolate/turn-batcher.ts'

describe('TurnBatcher (issue 12)', () => {
  it('delivers what one turn pushed together at the end of the turn, in order', async () => {
    const delivered: number[][] = []
    const batcher = new TurnBatcher<number>((items) => delivered.push(items))
    batcher.push(1)
    batcher.push(2)
    batcher.push(3)
    expect(delivered).toEqual([])
    await turnEnd()
    expect(delivered).toEqual([[1, 2, 3]])
  })

  it(`delivers a batch at once when it reaches its limit (${MAX_BATCH_ITEMS} by default), and the rest at the end of the turn`, async () => {
    const delivered: number[][] = []
    const batcher = new TurnBatcher<number>((items) => delivered.push(items))
    for (let item = 0; item < MAX_BATCH_ITEMS * 2 + 5; item++) batcher.push(item)
    expect(delivered.map((batch) => batch.length)).toEqual([MAX_BATCH_ITEMS, MAX_BATCH_ITEMS])
    await turnEnd()
    expect(delivered.map((batch) => batch.length)).toEqual([MAX_BATCH_ITEMS, MAX_BATCH_ITEMS, 5])
    expect(delivered.flat()).toEqual(Array.from({ length: MAX_BATCH_ITEMS * 2 + 5 }, (_, item) => item))
  })

  it('takes a smaller limit, and flush() and clear() act on what waits', async () => {
    const delivered: string[][] = []
    const batcher = new TurnBatcher<string>((items) => delivered.push(items), 2)
    batcher.push('a')
    batcher.push('b')
    batcher.push('c')
    expect(delivered).toEqual([['a', 'b']])
    batcher.flush()
    expect(delivered).toEqual([['a', 'b'], ['c']])
    batcher.push('d')
    batcher.clear()
    await turnEnd()
    expect(delivered).toEqual([['a', 'b'], ['c']])
  })

  it('with soon, delivers one microtask later what this task pushed, without waiting for the end of the turn', async () => {
    const delivered: number[][] = []
    const batcher = new TurnBatcher<number>((items) => delivered.push(items))
    batcher.push(1)
    batcher.push(2, true)
    batcher.push(3, true)
    expect(delivered).toEqual([])
    await Promise.resolve()
    expect(delivered).toEqual([[1, 2, 3]])
    batcher.push(4)
    await Promise.resolve()
    expect(delivered).toEqual([[1, 2, 3]])
    await turnEnd()
    expect(delivered).toEqual([[1, 2, 3], [4]])
  })

  it('pushAlone delivers at once when nothing waits, and otherwise goes one microtask later behind what does', async () => {
    const delivered: number[][] = []
    const batcher = new TurnBatcher<number>((items) => delivered.push(items))
    batcher.pushAlone(1)
    expect(delivered).toEqual([[1]])
    batcher.push(2)
    batcher.pushAlone(3)
    expect(delivered).toEqual([[1]])
    await Promise.resolve()
    expect(delivered).toEqual([[1], [2, 3]])
  })

  it('with soon, items pushed at the same microtask depth (the answers of one IPC message) go in one batch', async () => {
    const delivered: number[][] = []
    const batcher = new TurnBatcher<number>((items) => delivered.push(items))
    const answers = Array.from({ length: 5 }, (_, item) => Promise.resolve(item).then((value) => value))
    for (const answer of answers) void answer.then((value) => batcher.push(value, true))
    await Promise.all(answers)
    await turnEnd()
    expect(delivered).toEqual([[0, 1, 2, 3, 4]])
  })
})
