// How late the event loop turns, sampled between two reads: what /livez reports. One per process.
import { monitorEventLoopDelay } from 'node:perf_hooks';

export interface EventLoopDelay {
  /** The 99th percentile delay in ms since the previous read (or since creation); starts a new sample. */
  takeP99Ms(): number;
  close(): void;
}

export function createEventLoopDelay(resolutionMs = 20): EventLoopDelay {
  const histogram = monitorEventLoopDelay({ resolution: resolutionMs });
  histogram.enable();
  return {
    takeP99Ms() {
      const p99 = Math.round(histogram.percentile(99) / 1e6);
      histogram.reset();
      return p99;
    },
    close() {
      histogram.disable();
    },
  };
}
