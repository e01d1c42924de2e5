/**
 * The far end of `call-path.bench.ts`'s bare IPC round trips: echoes every message it gets back
 * over the IPC channel it was forked with, and exits when the channel closes. A `prime` message
 * (`{ type: 'prime', reply }`) is kept instead of echoed, and every later `{ type: 'reply' }` is
 * answered with its `reply`: a small message there, a large one back, as a call with a large
 * result goes. Nothing else runs here, so a round trip costs the two process wake-ups and the
 * channel's own work, no more.
 */
if (typeof process.send !== 'function') throw new Error('ipc-echo-child.ts must be forked with an IPC channel')
let reply: unknown
process.on('message', (message: { type?: string; reply?: unknown }) => {
  if (message.type === 'prime') reply = message.reply
  else process.send!(message.type === 'reply' ? reply : message)
})
process.on('disconnect', () => process.exit(0))
