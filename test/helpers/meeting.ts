/**
 * A meeting point for proving that calls overlap (S7.2) without timing them: `enter()` resolves
 * once `count` callers are inside at the same time, and `widest` is the most that ever were. A
 * serial caller is let through 10 s after the first one entered, so such a test fails on
 * `widest`, not by hanging. (The wait starts at the first `enter()`, not when the meeting is made:
 * a slow start of the host before the test must not open it early.)
 */
export function meeting(count: number): { readonly widest: number; enter(): Promise<void> } {
  let inside = 0
  let widest = 0
  let open!: () => void
  let timer: ReturnType<typeof setTimeout> | undefined
  const opened = new Promise<void>((resolve) => (open = resolve))
  return {
    get widest() {
      return widest
    },
    async enter() {
      timer ??= setTimeout(() => open(), 10_000)
      widest = Math.max(widest, ++inside)
      if (inside >= count) {
        clearTimeout(timer)
        open()
      }
      await opened
      inside--
    },
  }
}
