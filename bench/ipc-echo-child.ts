/**
 * The far end of `call-path.bench.ts`'s bare IPC round trip: echoes every message it gets back
 * over the IPC channel it was forked with, and exits when the channel closes. Nothing else runs
 * here, so a round trip costs the two process wake-ups and the channel's own work, no more.
 */
if (typeof process.send !== 'function') throw new Error('ipc-echo-child.ts must be forked with an IPC channel')
process.on('message', (message) => process.send!(message))
process.on('disconnect', () => process.exit(0))
