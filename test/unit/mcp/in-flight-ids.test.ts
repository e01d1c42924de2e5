/**
 * The ids of a client's requests in flight (JSON-RPC 2.0 §4; SPEC S9.4: what `ptc serve`'s
 * transports claim before delivering a request).
 */
import { describe, expect, it } from 'vitest'
import { cancelledInFlight, InFlightIds, requestEndedUnanswered } from '../../../src/mcp/in-flight-ids.ts'
import { deliverAllButRequests } from '../../../src/mcp/refused-batches.ts'

const request = (id: string | number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'run_code', arguments: { code: 'return 1' } } })
const cancel = (requestId: string | number, reason?: string) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, ...(reason !== undefined && { reason }) } })

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

  it('S1.3 S9.4 a batch with a repeated or an in-flight id is refused whole and claims nothing, but its cancel is applied; a cancel in it does not free its id for a request of the same batch', () => {
    const ids = new InFlightIds()
    expect(ids.claim([request(1), request(1)])?.message).toMatch(/^Invalid Request: request id 1 appears more than once in this batch.* This whole batch was refused: none of its requests was run \(what else it held, notifications and answers, was delivered\)\.$/)
    expect(ids.claim(request(1))).toBeUndefined()
    expect(ids.claim([request(2), request(1)])?.id).toBe(1)
    expect(ids.claim(request(2))).toBeUndefined()
    expect(ids.claim([cancel(1), request(1)])?.message).toMatch(/^Invalid Request: request id 1 is still in flight: the request with this id was cancelled and is still stopping .* This whole batch was refused: none of its requests was run \(what else it held, notifications and answers, was delivered\)\.$/)
    // The refused batch's cancel is delivered (deliverAllButRequests), so its mark stays: 1 is stopping, and its end frees it.
    expect(ids.claim(request(1))?.message).toMatch(/^Invalid Request: request id 1 is still in flight: the request with this id was cancelled/)
    ids.answered({ jsonrpc: '2.0', id: 1, result: {} })
    expect(ids.claim(request(1))).toBeUndefined()
  })

  it('S9.4 a cancelled id stays claimed, refused as still stopping, until its request has ended unanswered (or was answered after all)', () => {
    const ids = new InFlightIds()
    const transport = { send: async (_message: unknown) => {} }
    ids.watchAnswers(transport)
    expect(ids.claim(request(7))).toBeUndefined()
    expect(cancelledInFlight(transport, 7)).toBeUndefined()
    expect(ids.claim(cancel(7, 'changed my mind'))).toBeUndefined()
    // The cancel's reason goes with its mark, for a request whose handler has not run yet (mcp-session.ts).
    expect(cancelledInFlight(transport, 7)).toEqual({ reason: 'changed my mind' })
    expect(cancelledInFlight({ send: async () => {} }, 7)).toBeUndefined()
    expect(ids.claim(request(7))).toEqual({ id: 7, code: -32600, message: 'Invalid Request: request id 7 is still in flight: the request with this id was cancelled and is still stopping (a cancelled request gets no answer; its id is free once it has stopped). JSON-RPC request ids must be unique among the requests in flight. Retry shortly, or send this request with another id.' })
    requestEndedUnanswered(undefined, 7)
    requestEndedUnanswered({ send: async () => {} }, 7)
    expect(ids.claim(request(7))?.id).toBe(7)
    requestEndedUnanswered(transport, 7)
    expect(ids.claim(request(7))).toBeUndefined()
    // A cancel for an id not in flight (late, or never sent) marks nothing: not the request that reuses the id after it.
    expect(cancelledInFlight(transport, 7)).toBeUndefined()
    expect(ids.claim(cancel(8))).toBeUndefined()
    expect(ids.claim(request(8))).toBeUndefined()
    expect(cancelledInFlight(transport, 8)).toBeUndefined()
    // In one batch, a cancel marks the request before it, not the one after it.
    expect(ids.claim([request(9), cancel(9), cancel(10), request(10)])).toBeUndefined()
    expect([cancelledInFlight(transport, 9), cancelledInFlight(transport, 10)]).toEqual([{ reason: undefined }, undefined])
    // A cancelled request answered anyway (it had ended before the cancel was handled) frees its id with its answer.
    ids.claim(cancel(8))
    void transport.send({ jsonrpc: '2.0', id: 8, result: {} })
    expect(ids.claim(request(8))).toBeUndefined()
  })

  it('S1.3 S9.4 a cancel in an arrival its transport refused (release) is undone: the request it named runs on, not stopping', () => {
    const ids = new InFlightIds()
    const transport = { send: async (_message: unknown) => {} }
    ids.watchAnswers(transport)
    ids.claim(request(1))
    ids.claim(request(2))
    ids.claim(cancel(2))
    const refusedPost = [cancel(1), cancel(2), request(3)]
    expect(ids.claim(refusedPost)).toBeUndefined()
    ids.release(refusedPost)
    expect(cancelledInFlight(transport, 1)).toBeUndefined()
    expect(ids.claim(request(1))?.message).toMatch(/^Invalid Request: request id 1 is still in flight \(a request with this id was received and has not been answered yet\)/)
    // 2 was cancelled by an arrival that was delivered: that mark stays.
    expect(cancelledInFlight(transport, 2)).toEqual({ reason: undefined })
    const lone = cancel(1)
    ids.claim(lone)
    ids.release(lone)
    expect(cancelledInFlight(transport, 1)).toBeUndefined()
  })

  it('S1.3 S9.4 a cancel naming a request whose cancel the session ignores (not a tools/call) marks nothing: a duplicate of its id is told it is running', () => {
    const ids = new InFlightIds()
    ids.claim({ jsonrpc: '2.0', id: 4, method: 'tools/list' })
    ids.claim(cancel(4))
    expect(ids.claim(request(4))?.message).toMatch(/^Invalid Request: request id 4 is still in flight \(a request with this id was received/)
  })

  it('S1.3 S9.4 in a refused batch, a cancel after a request of its own with the id is that request\'s: neither marked nor delivered, so the earlier request with the id runs on', () => {
    const ids = new InFlightIds()
    const transport = { send: async (_message: unknown) => {}, onmessage: (message: unknown) => void delivered.push(message) }
    const delivered: unknown[] = []
    ids.watchAnswers(transport)
    ids.claim(request(5))
    ids.claim(request(6))
    const batch = [request(5), cancel(5), cancel(6), { jsonrpc: '2.0', method: 'notifications/progress', params: {} }]
    expect(ids.claim(batch)?.id).toBe(5)
    expect([cancelledInFlight(transport, 5), cancelledInFlight(transport, 6)]).toEqual([undefined, { reason: undefined }])
    deliverAllButRequests(transport, batch)
    expect(delivered).toEqual([cancel(6), batch[3]])
  })

  it('S9.4 notifications, answers from the client and what is no message claim nothing; release frees a refused arrival', () => {
    const ids = new InFlightIds()
    for (const arrival of [{ jsonrpc: '2.0', method: 'notifications/initialized' }, { jsonrpc: '2.0', id: 3, result: {} }, null, 'x', { id: 3 }]) expect(ids.claim(arrival)).toBeUndefined()
    expect(ids.claim(request(3))).toBeUndefined()
    ids.release(request(3))
    expect(ids.claim(request(3))).toBeUndefined()
  })
})
