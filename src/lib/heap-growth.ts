// How far V8 lets the old generation grow past what survived the last full collection
// (docs/OPERATIONS.md, "The process's memory"). V8 picks a factor between 1.1 and 4 from how fast it
// collects; a process that promotes short-lived garbage at a steady rate (an export reading a million
// rows through the PostgreSQL driver) sits near 4, so a live heap of 60 MB held about 250 MB before each
// full collection. At 1.5 the same export holds about 30 MB more than it started with, for a full
// collection every few hundred milliseconds while it runs (each mostly concurrent, a few ms of pause).
import { setFlagsFromString } from 'node:v8';

/** The old generation may reach (1 + this / 100) × what was live after the last full collection. */
export const HEAP_GROWING_PERCENT = 50;

const FLAG = /^--heap[-_]growing[-_]percent(=|$)/;

/**
 * Sets V8's heap growing factor for this process, unless the command line already chose one (an
 * operator's `node --heap-growing-percent=…` wins). V8 reads the flag each time it sizes the heap after
 * a collection, so setting it at run time takes effect from the next one. Returns whether it set it.
 */
export function limitHeapGrowth(execArgv: readonly string[] = process.execArgv): boolean {
  if (execArgv.some((arg) => FLAG.test(arg))) return false;
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
  return true;
}
