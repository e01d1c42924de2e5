/**
 * A run's wall-clock deadline as a timer that never fires early (SPEC S9.7: a run ends at its
 * `wallClockMs`, not before). Node counts a `setTimeout` in whole milliseconds of the event loop's
 * clock, so a plain timer often fires a fraction of a millisecond before `performance.now()` has
 * reached its deadline (a run would then end at 299.6 ms of a 300 ms limit).
 */

/**
 * Calls `onDeadline` once `performance.now()` has reached `atMs` (ms, the `performance.now()`
 * clock), re-arming for what is left when the timer fires early. Every timer handle it creates is
 * pushed onto `timers`, so clearing all of them (as the run does when it ends) cancels it.
 */
export function setDeadline(timers: NodeJS.Timeout[], atMs: number, onDeadline: () => void): void {
  const arm = (): void => {
    const leftMs = atMs - performance.now()
    if (leftMs > 0) timers.push(setTimeout(arm, Math.ceil(leftMs)))
    else onDeadline()
  }
  timers.push(setTimeout(arm, Math.max(0, Math.ceil(atMs - performance.now()))))
}
