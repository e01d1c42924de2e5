/**
 * `deliver` for a worker channel (`worker-channel.ts`, SPEC S9.1) that never throws into the
 * channel's event handler, where it would take the host down: the first message it throws on (one
 * a worker wrote that is no message its owner can handle, such as `null`) calls `stop` once and is
 * described by `problem()`, and nothing more is delivered (as `host-frames.ts` does for frames).
 */
export function guardedDelivery<Message>(deliver: (message: Message) => void, stop: () => void): { deliver: (message: Message) => void; problem: () => string | undefined } {
  let problem: string | undefined
  return {
    deliver(message) {
      if (problem !== undefined) return
      try {
        deliver(message)
      } catch (error) {
        problem = `its message could not be handled: ${(error as Error)?.message ?? String(error)}`.slice(0, 300)
        stop()
      }
    },
    problem: () => problem,
  }
}
