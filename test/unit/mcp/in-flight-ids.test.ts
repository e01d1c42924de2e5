/**
 * The ids of a client's requests in flight (JSON-RPC 2.0 §4; SPEC S9.4: what `ptc serve`'s
 * transports claim before delivering a request).
 */
import { describe, expect, it } from 'vitest'
import { InFlightIds } from '../../../src/mcp/in-flight-ids.ts'

const request = (id: string | number) => ({ jsonrpc: '2.0', id, method: 'ping' })

describe('InFlightIds (S9.4)', () => {
  it('S9.4 refuses an id in flight until its answer is sent; a string id and a number id are different ids', () => {
    const ids = new InFlightIds()
    expect(ids.claim(request(1))).toBeUndefined()
    expect(ids.claim(request('1'))).toBeUndefined()
    expect(ids.claim(request(1))).toEqual({ id: 1, code: -32600, message: expect.stringMatching(/^Invalid Request: request id 1 is still in flight/) })
    expect(ids.claim(request('1'))?.message).toMatch(/^Invalid Request: request id "1" is still in flight/)
    ids.answered({ jsonrpc: '2.0', id: 1, result: {} })
    ids.answered({ jsonrpc: '2.0', id: '1', error: { code: -1, message: 'x' } })
    expect(ids.claim(request(1))).toBeUndefined()
    expect(ids.claim(request('1'))).toBeUndefined()
  })

  it('S9.4 a batch with a repeated or an in-flight id is refused whole and claims nothing; a cancel in it frees its id first', () => {
    const ids = new InFlightIds()
    expect(ids.claim([request(1), request(1)])?.message).toMatch(/^Invalid Request: request id 1 appears more than once in this batch/)
    expect(ids.claim(request(1))).toBeUndefined()
    expect(ids.claim([request(2), request(1)])?.id).toBe(1)
    expect(ids.claim(request(2))).toBeUndefined()
    expect(ids.claim([{ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } }, request(1)])).toBeUndefined()
  })

  it('S9.4 notifications, answers from the client and what is no message claim nothing; release frees a refused arrival', () => {
    const ids = new InFlightIds()
    for (const arrival of [{ jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', id: 3, result: {} }, null, 'x', { id: 3 }]) expect(ids.claim(arrival)).toBeUndefined()
    expect(ids.claim(request(3))).toBeUndefined()
    ids.release(request(3))
    expect(ids.claim(request(3))).toBeUndefined()
  })
})
