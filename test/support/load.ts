import { availableParallelism, loadavg } from 'node:os';

/** The highest multiple of a deadline, so that a test's deadline still ends before the run's file timeout. */
const MAX_LOAD_FACTOR = 8;

/** The load average per core when above one (at most MAX_LOAD_FACTOR): how much longer a wait may take. */
export function loadFactor(): number {
  return Math.min(MAX_LOAD_FACTOR, Math.max(1, loadavg()[0]! / availableParallelism()));
}
