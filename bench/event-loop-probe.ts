/**
 * Measures how late this process's event loop answers (issue 16: "the host only routes"): a timer
 * every `intervalMs`, each firing's lateness is one sample. A host that runs a long synchronous
 * step (a type-check, a backtracking regex) shows it as lag; every session waits that long.
 * Reusable by any bench section that puts the service under load.
 */

/** Percentiles of the samples, in ms. */
export interface LagStats {
  p50: number
  p99: number
  max: number
  samples: number
}

/** A running probe; `stop()` ends it and summarizes the lag it saw. */
export interface LagProbe {
  stop(): LagStats
}

/** Starts sampling now. `intervalMs` (default 10) is the timer period; lag = actual − expected gap. */
export function startLagProbe(intervalMs = 10): LagProbe {
  const lags: number[] = []
  let last = performance.now()
  const timer = setInterval(() => {
    const now = performance.now()
    lags.push(Math.max(0, now - last - intervalMs))
    last = now
  }, intervalMs)
  return {
    stop() {
      clearInterval(timer)
      // A step still blocking when we stop counts too: the probe would have fired that late.
      lags.push(Math.max(0, performance.now() - last - intervalMs))
      return { p50: percentile(lags, 50), p99: percentile(lags, 99), max: Math.max(...lags), samples: lags.length }
    },
  }
}

/** The `p`th percentile (nearest rank) of `values`; 0 for none. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return 0
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!
}
