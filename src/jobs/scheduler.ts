// Runs periodic jobs (the worker role's, and the embedded database's upkeep) until the signal aborts; a
// failing run never stops the loop.
import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Metrics } from '../lib/metrics.js';

export interface ScheduledJob {
  readonly name: string;
  readonly intervalMs: number;
  /** One run; should return soon after `signal` aborts. */
  run(signal: AbortSignal): Promise<void>;
}

export interface SchedulerDeps {
  readonly logger: Pick<Logger, 'error' | 'debug'>;
  readonly metrics?: Pick<Metrics, 'jobRuns'>;
  /** Spread of each wait (0.1 = ±10 %), so several workers do not run in lockstep. */
  readonly jitter?: number;
}

/** Runs each job now and then every intervalMs after the previous run ends; resolves once aborted and idle. */
export async function runScheduledJobs(
  jobs: readonly ScheduledJob[],
  deps: SchedulerDeps,
  signal: AbortSignal,
): Promise<void> {
  await Promise.all(jobs.map((job) => runJobLoop(job, deps, signal)));
}

async function runJobLoop(job: ScheduledJob, deps: SchedulerDeps, signal: AbortSignal): Promise<void> {
  const jitter = deps.jitter ?? 0.1;
  while (!signal.aborted) {
    const startedAt = performance.now();
    try {
      await job.run(signal);
      deps.metrics?.jobRuns.labels(job.name, 'ok').inc();
      deps.logger.debug({ job: job.name, ms: Math.round(performance.now() - startedAt) }, 'job run');
    } catch (error) {
      if (signal.aborted) break;
      deps.metrics?.jobRuns.labels(job.name, 'error').inc();
      deps.logger.error({ job: job.name, err: error }, 'job run failed');
    }
    const waitMs = job.intervalMs * (1 + jitter * (2 * Math.random() - 1));
    try {
      await sleep(waitMs, undefined, { signal });
    } catch {
      break; // aborted
    }
  }
}
