/**
 * The far end of `rawProcessRunner` (`call-path-fixtures.ts`): raw isolated-vm in a child
 * process, as the harness's `isolated-vm-raw` adapter runs it (a fresh isolate per run, one
 * `Reference.apply` per call, JSON strings both ways), whose host function forwards each call to
 * the parent over the product's worker channel (`src/ptc/json-frames.ts`) and waits for its answer. So a call pays exactly the hops of
 * the product's worker-process design (isolate, worker thread, IPC, host, and back) with nothing
 * of the product's own on the worker side: the floor of that design (issue 12).
 *
 * Messages in: `{ type: 'run', code, names }` (a script body, the tool names) and
 * `{ type: 'answer', callId, json }` or `{ type: 'answer', callId, error }` (the call rejects).
 * Out: `{ type: 'ready' }` once, then `{ type: 'call', callId, name, argsJson }` and `{ type: 'done', json?, error? }`.
 * Exits when the channel closes.
 */
import { openParentFrames } from '../src/ptc/parent-frames.ts'
import { runRawIsolate } from './raw-isolate.ts'

type In = { type: string; code?: string; names?: string[]; callId?: number; json?: string; error?: string }
const parent = openParentFrames<In, object>(onMessage, () => process.exit(0))
const send = (message: object) => void parent.send(message)
send({ type: 'ready' })
const waiting = new Map<number, { answer: (json: string) => void; fail: (error: Error) => void }>()
let nextCallId = 0
const hostCall = (name: string, argsJson: string): Promise<string> =>
  new Promise((answer, fail) => {
    const callId = nextCallId++
    waiting.set(callId, { answer, fail })
    send({ type: 'call', callId, name, argsJson })
  })

async function run(code: string, names: string[]): Promise<void> {
  try {
    send({ type: 'done', json: await runRawIsolate(code, names, hostCall) })
  } catch (error) {
    send({ type: 'done', error: String(error) })
  }
}

function onMessage(message: In): void {
  if (message.type === 'run') void run(message.code!, message.names!)
  else if (message.type === 'answer') {
    const call = waiting.get(message.callId!)
    waiting.delete(message.callId!)
    if (message.error !== undefined) call?.fail(new Error(message.error))
    else call?.answer(message.json!)
  }
}
