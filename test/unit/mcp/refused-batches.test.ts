/**
 * A batch refused for a request id (SPEC S9.4): the errors it is answered with, and what of it is
 * delivered all the same (S1.3: its cancels).
 */
import { describe, expect, it } from 'vitest'
import { InFlightIds } from '../../../src/mcp/in-flight-ids.ts'
import { deliverAllButRequests, refusedBatch } from '../../../src/mcp/refused-batches.ts'

const request = (id: string | number) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'run_code', arguments: { code: 'return 1' } } })
const cancel = (requestId: string | number) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId } })

describe('refused batches (S9.4)', () => {
  it('S9.4 a refused batch gets an error for each of its requests, in order, the refusal itself for the first request with the id; notifications get none', () => {
    const ids = new InFlightIds()
    ids.claim(request(1))
    const batch = [request('a'), cancel(1), request(1), request(1)]
    const refused = ids.claim(batch)!
    expect(refusedBatch(batch, refused)).toEqual([
      { jsonrpc: '2.0', id: 'a', error: { code: -32600, message: expect.stringMatching(/^Invalid Request: this batch was refused because request id 1 in it cannot be used now/) } },
      { jsonrpc: '2.0', id: 1, error: { code: -32600, message: refused.message } },
      { jsonrpc: '2.0', id: 1, error: { code: -32600, message: expect.stringMatching(/^Invalid Request: this batch was refused/) } },
    ])
  })

  it('S1.3 S9.4 a refused batch delivers what in it is no request (notifications, the client\'s answers), in order, and no request', () => {
    const delivered: unknown[] = []
    const transport = { onmessage: (message: unknown) => void delivered.push(message) }
    const answer = { jsonrpc: '2.0', id: 'elicit-1', result: { action: 'decline' } }
    const failure = { jsonrpc: '2.0', id: 'elicit-2', error: { code: -1, message: 'no' } }
    deliverAllButRequests(transport, [request(1), cancel(3), answer, { jsonrpc: '2.0', id: 2, method: 'notifications/cancelled' }, 'x', failure, request(2)])
    expect(delivered).toEqual([cancel(3), answer, failure])
  })
})
