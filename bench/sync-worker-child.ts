/**
 * The far end of `rawProcessRunner(…, 'sync')` (`call-path-fixtures.ts`): raw isolated-vm in a
 * child process, driven synchronously from the child's main thread. Each answer from the parent
 * enters the isolate with `applySync`, so the script's next step runs on this thread, and the
 * calls it makes (a `Reference` it calls with `applySync`, which runs here at once) go out before
 * the thread sleeps again. A call then wakes two threads (this one and the parent's) instead of
 * four (the isolate's thread and this one, each way), as in `raw-worker-child.ts`.
 *
 * The floor of the product's worker for a sequential call (issue 12): since round 25 the worker
 * runs a run's sequential steps this way while another worker of the group is idle
 * (`src/ptc/isolate/step-permission.ts`), with the limits, permission and stack that make it safe
 * there; this child has none of them. Bench only.
 *
 * Same messages as `raw-worker-child.ts`: in `{ type: 'run', code, names }` and
 * `{ type: 'answer', callId, json }` or `{ type: 'answer', callId, error }`; out `{ type: 'ready' }`
 * once, then `{ type: 'call', callId, name, argsJson }` and `{ type: 'done', json?, error? }`.
 */
import ivm from 'isolated-vm'
import { openParentFrames } from '../src/ptc/parent-frames.ts'

type In = { type: string; code?: string; names?: string[]; callId?: number; json?: string; error?: string }
type Out = { type: 'call'; callId: number; name: string; argsJson: string } | { type: 'done'; json?: string; error?: string }

const parent = openParentFrames<In, object>(onMessage, () => process.exit(0))
parent.send({ type: 'ready' })

/** The run in progress: its isolate and the script's `settle(callId, ok, text)`. */
let run: { isolate: ivm.Isolate; settle: ivm.Reference } | undefined
/** What the step that just ran sent; it leaves when the step is over. */
let outbox: Out[] = []

function sendOutbox(): void {
  const messages = outbox
  outbox = []
  for (const message of messages) parent.send(message)
}

function finish(json: string | undefined, error?: string): void {
  outbox.push(error === undefined ? { type: 'done', json } : { type: 'done', error })
  const ended = run
  run = undefined
  // Not inside the step that is still running: disposed once it has returned.
  setImmediate(() => ended?.isolate.dispose())
}

function start(code: string, names: readonly string[]): void {
  const isolate = new ivm.Isolate({ memoryLimit: 128 })
  const context = isolate.createContextSync()
  context.global.setSync('__call', new ivm.Reference((callId: number, name: string, argsJson: string) => void outbox.push({ type: 'call', callId, name, argsJson })))
  context.global.setSync('__done', new ivm.Reference(finish))
  const tools = names.map((name) => `${JSON.stringify(name)}: (a) => __callTool(${JSON.stringify(name)}, a)`).join(', ')
  const prelude = `const __waiting = new Map(); let __next = 0;
globalThis.__settle = (id, ok, text) => { const call = __waiting.get(id); __waiting.delete(id); if (ok) call.resolve(text); else call.reject(new Error(text)) };
const __callTool = (name, a) => new Promise((resolve, reject) => { const id = __next++; __waiting.set(id, { resolve, reject }); __call.applySync(undefined, [id, name, JSON.stringify(a === undefined ? null : a)]) }).then(JSON.parse);
const tools = {${tools}};
`
  const body = `(async () => {\n${code}\n})().then((v) => __done.applySync(undefined, [v === undefined ? undefined : JSON.stringify(v)]), (e) => __done.applySync(undefined, [undefined, String(e)]))`
  const current = { isolate, settle: undefined as unknown as ivm.Reference }
  run = current
  try {
    isolate.compileScriptSync(prelude + body).runSync(context, { timeout: 30_000 })
    // `__settle` exists once the prelude has run; the script may already have finished.
    if (run === current) current.settle = context.global.getSync('__settle', { reference: true }) as ivm.Reference
  } catch (error) {
    finish(undefined, String(error))
  }
  sendOutbox()
}

function onMessage(message: In): void {
  if (message.type === 'run') start(message.code!, message.names!)
  else if (message.type === 'answer' && run !== undefined) {
    const ok = message.error === undefined
    try {
      run.settle.applySync(undefined, [message.callId!, ok, ok ? message.json! : message.error!], { timeout: 30_000 })
    } catch (error) {
      finish(undefined, String(error))
    }
    sendOutbox()
  }
}
