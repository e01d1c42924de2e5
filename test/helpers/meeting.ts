/**
 * A meeting point for proving that calls overlap (S7.2) without timing them: `enter()` resolves
 * once `count` callers are inside at the same time, and `widest` is the most that ever were. A
 * serial caller is let through after 10 s, so such a test fails on `widest`, not by hanging.
 */
export function meeting(count: number): { readonly widest: number; enter(): Promise<void> } {
  let inside = 0
  let widest = 0
  let open!: () => void
  const opened = new Promise<void>((resolve) => (open = resolve))
  const timer = setTimeout(() => open(), 10_000)
  return {
    get widest() {
      return widest
    },
    async enter() {
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
