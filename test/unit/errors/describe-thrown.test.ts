/**
 * describeThrown (STYLE: errors; S6.5 a failed call's message, S9.3 the ToolCallError a script
 * sees): an Error's own cause chain is kept, three deep, cycles and throwing getters said.
 */
import { describe, expect, it } from 'vitest'
import { describeThrown } from '../../../src/errors/describe-thrown.ts'
import { PtcError } from '../../../src/errors/ptc-error.ts'

describe('describeThrown', () => {
  it('S6.5 gives an Error its message, a string as is, anything else as JSON', () => {
    expect(describeThrown(new Error('boom'))).toBe('boom')
    expect(describeThrown(new TypeError(''))).toBe('TypeError')
    expect(describeThrown('plain')).toBe('plain')
    expect(describeThrown({ code: 7 })).toBe('{"code":7}')
    expect(describeThrown(undefined)).toBe('undefined')
  })

  it('S6.5 follows an Error’s own cause chain, named, three deep', () => {
    const deepest = new RangeError('d4')
    const chain = new Error('outer', { cause: new TypeError('inner', { cause: new Error('d3', { cause: deepest }) }) })
    expect(describeThrown(chain)).toBe('outer (cause: TypeError: inner (cause: Error: d3 (cause: RangeError: d4)))')
    const four = new Error('0', { cause: new Error('1', { cause: new Error('2', { cause: new Error('3', { cause: new Error('4') }) }) }) })
    expect(describeThrown(four)).toBe('0 (cause: Error: 1 (cause: Error: 2 (cause: Error: 3)))')
    expect(describeThrown(new Error('fetch failed', { cause: 'ECONNREFUSED' }))).toBe('fetch failed (cause: ECONNREFUSED)')
  })

  it('S6.5 says a cause that is not an Error or a primitive only by its kind, cuts a long one, and skips an undefined one', () => {
    const request = { url: 'https://api.example', headers: { authorization: 'Bearer sk-SECRET' }, body: 'x'.repeat(1_000_000) }
    expect(describeThrown(new Error('request failed', { cause: request }))).toBe('request failed (cause: an object)')
    expect(describeThrown(new Error('bad', { cause: () => 1 }))).toBe('bad (cause: a function)')
    expect(describeThrown(new Error('code', { cause: 42 }))).toBe('code (cause: 42)')
    expect(describeThrown(new Error('nothing', { cause: undefined }))).toBe('nothing')
    const long = describeThrown(new Error('long', { cause: new Error('y'.repeat(5_000)) }))
    expect(long).toBe(`long (cause: Error: ${'y'.repeat(293)}…)`)
  })

  it('S6.5 does not repeat the cause of the product’s own errors, whose messages are written complete', () => {
    const own = new PtcError('mcp-connection', 'MCP server "x" exited while "y" was running. The next call restarts it.', { cause: new Error('Connection closed') })
    expect(describeThrown(own)).toBe('MCP server "x" exited while "y" was running. The next call restarts it.')
    expect(describeThrown(new Error('wrapped', { cause: own }))).toBe('wrapped (cause: PtcError: MCP server "x" exited while "y" was running. The next call restarts it.)')
  })

  it('S6.5 says a cyclic cause and a cause getter that throws, and never throws itself', () => {
    const a = new Error('a')
    const b = new Error('b', { cause: a })
    Object.defineProperty(a, 'cause', { value: b })
    expect(describeThrown(a)).toBe('a (cause: Error: b (cause: [Circular]))')
    const hostile = new Error('hostile')
    Object.defineProperty(hostile, 'cause', {
      get() {
        throw new Error('no')
      },
    })
    expect(describeThrown(hostile)).toBe('hostile (cause: unreadable)')
    const revoked = Proxy.revocable({}, {})
    revoked.revoke()
    expect(describeThrown(revoked.proxy)).toBe('an unprintable value was thrown')
  })
})
