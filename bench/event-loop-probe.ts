/**
 * Event-loop lag of this process while something runs (issue 16, "service under attack"): how
 * late a timer fires, from Node's `monitorEventLoopDelay` histogram, in ms. The host runs in the
 * bench process, so this is the lag every other session would see.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks'

/** Lag percentiles in ms. */
export interface EventLoopLag {
  p50: number
  p99: number
  max: number
}

/** A running probe: `stop()` ends it and returns the lag seen since it started. */
export interface EventLoopProbe {
  stop(): EventLoopLag
}

/** Start sampling the event loop every `resolutionMs` (default 10). */
export function probeEventLoop(resolutionMs = 10): EventLoopProbe {
  const histogram = monitorEventLoopDelay({ resolution: resolutionMs })
  histogram.enable()
  return {
    stop() {
      histogram.disable()
      // The histogram records each sampling timer's whole wait, the interval included
      // (an idle loop reads ~resolutionMs): the lag is what exceeds it.
      const ms = (ns: number) => Math.max(0, ns / 1e6 - resolutionMs)
      return { p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max) }
    },
  }
}

/** The `q`-quantile (0–1) of `values` (nearest rank); `NaN` for none. */
export function quantile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
}
