// The policy preview (POST /api/vaults/:address/policy-preview): the vault's transfer attempts of a
// period replayed under a proposed daily limit and whitelist (policy-replay.ts). The attempts come from
// the attempt store (policy-attempts.ts): one indexed range read of the vault's attempts per data
// version, shared by every preview of that vault until an attempt is written; a preview then costs a
// replay in memory. Reads of the database are bounded per client and in all (429 with Retry-After).
import { validationError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { getSlotLimits, type SlotHolder } from '../../lib/concurrency-slots.js';
import { parseLamports } from '../../lib/lamports.js';
import type { Storage } from '../../storage/database.js';
import { DAY_MS } from '../analytics/periods.js';
import { type ConcurrencyCap, createConcurrencyCap } from '../concurrency-caps.js';
import { getVaultRow } from '../vaults/vault-reads.js';
import { type AttemptStore, createAttemptStore, firstAtOrAfter } from './policy-attempts.js';
import {
  type PolicyPreview,
  type PolicyPreviewBody,
  PREVIEW_DEFAULT_DAYS,
  PREVIEW_MAX_CHANGES,
  PREVIEW_MAX_DAYS,
} from './policy-preview-resource.js';
import { type ReplayPolicy, replayPolicy } from './policy-replay.js';

/** Attempts held in memory over every vault (about 200 bytes each). */
export const PREVIEW_HELD_ATTEMPTS = 250_000;
/** Database reads of attempts one client address, and the process, may have running at once. */
export const PREVIEW_READS_PER_CLIENT = 1;
export const PREVIEW_READS_TOTAL = 4;

const CLOCK_SKEW_MS = 60_000;

export interface PolicyPreviewDeps {
  readonly storage: Storage;
  readonly clock: Clock;
  /** Counts each read the caps refused. */
  readonly metrics: { readonly rateLimitRejections: { labels(category: string): { inc(): void } } };
  /** The caps on reads of attempts; default PREVIEW_READS_PER_CLIENT and PREVIEW_READS_TOTAL. */
  readonly reads?: ConcurrencyCap;
}

/** The period's start: `since`, or 30 days back; never more than 90 days back nor in the future. */
function periodStart(since: string | undefined, now: Date): Date {
  if (since === undefined) return new Date(now.getTime() - PREVIEW_DEFAULT_DAYS * DAY_MS);
  const start = new Date(since);
  if (Number.isNaN(start.getTime()))
    throw validationError([{ path: 'body.since', message: 'must be an ISO 8601 date-time' }]);
  const earliest = now.getTime() - PREVIEW_MAX_DAYS * DAY_MS;
  // A client that computed "90 days back" a moment ago is not refused for its clock or its latency.
  if (start.getTime() < earliest - CLOCK_SKEW_MS)
    throw validationError([{ path: 'body.since', message: `must be at most ${PREVIEW_MAX_DAYS} days back` }]);
  if (start.getTime() > now.getTime())
    throw validationError([{ path: 'body.since', message: 'must not be in the future' }]);
  return start.getTime() < earliest ? new Date(earliest) : start;
}

function proposedLimit(body: PolicyPreviewBody): bigint | undefined {
  if (body.dailyLimit === undefined) return undefined;
  const limit = parseLamports(body.dailyLimit);
  if (limit === null)
    throw validationError([
      { path: 'body.dailyLimit', message: 'must be a whole number of lamports from 1 to 2^64-1' },
    ]);
  return limit;
}

/** The default caps on reads of attempts, refusals counted as `policy_preview_reads` rate-limit rejections. */
export function createPreviewReadCap(metrics: PolicyPreviewDeps['metrics']): ConcurrencyCap {
  return createConcurrencyCap(getSlotLimits(PREVIEW_READS_PER_CLIENT, PREVIEW_READS_TOTAL), {
    retryAfterSeconds: 1,
    what: 'policy previews reading transfer history',
    onRefused: () => metrics.rateLimitRejections.labels('policy_preview_reads').inc(),
  });
}

export function createPolicyPreviewService(deps: PolicyPreviewDeps) {
  const store: AttemptStore = createAttemptStore(deps.storage, {
    maxAttempts: PREVIEW_HELD_ATTEMPTS,
    keepMs: PREVIEW_MAX_DAYS * DAY_MS,
  });
  const reads = deps.reads ?? createPreviewReadCap(deps.metrics);
  return {
    /** Database reads of attempts made so far (previews served from memory make none). */
    attemptReads: store.reads,
    /** Which of the vault's recent attempts would have gone differently under the proposed policy. */
    async preview(idOrAddress: string, body: PolicyPreviewBody, holder: SlotHolder): Promise<PolicyPreview> {
      if (body.dailyLimit === undefined && body.whitelist === undefined)
        throw validationError([
          { path: 'body.dailyLimit', message: 'give dailyLimit, whitelist or both: the policy to preview' },
        ]);
      const end = deps.clock.now();
      const start = periodStart(body.since, end);
      const limit = proposedLimit(body);
      const vault = await getVaultRow(deps.storage.db, idOrAddress);
      const current: ReplayPolicy = { dailyLimit: vault.dailyLimit, whitelist: vault.whitelist };
      const proposed: ReplayPolicy = {
        dailyLimit: limit ?? current.dailyLimit,
        whitelist: body.whitelist ?? current.whitelist,
      };
      const attempts = await store.get(vault.id, vault, start, end, (load) => reads.run(holder, load));
      // The period [start, end] at the column's precision (µs): a contiguous run of the time-ordered attempts.
      const range = {
        from: firstAtOrAfter(attempts, start.getTime() * 1000),
        to: firstAtOrAfter(attempts, end.getTime() * 1000 + 1),
      };
      const { summary, changes, truncated } = replayPolicy(attempts, proposed, PREVIEW_MAX_CHANGES, range);
      const policyOut = (p: ReplayPolicy) => ({
        dailyLimit: p.dailyLimit.toString(),
        whitelist: [...p.whitelist],
      });
      return {
        vault: vault.address,
        period: { start: start.toISOString(), end: end.toISOString() },
        current: policyOut(current),
        proposed: policyOut(proposed),
        summary: {
          ...summary,
          newlyBlockedVolume: summary.newlyBlockedVolume.toString(),
          newlyAllowedVolume: summary.newlyAllowedVolume.toString(),
        },
        changes: changes.map(({ index, would, wouldReason }) => {
          const attempt = attempts[index]!;
          return {
            signature: attempt.signature,
            timestamp: new Date(Math.floor(attempt.micros / 1000)).toISOString(),
            destination: attempt.destination,
            amount: attempt.amount.toString(),
            was: attempt.status,
            wasReason: attempt.blockReason,
            would,
            wouldReason,
          };
        }),
        truncated,
      };
    },
  };
}

export type PolicyPreviewService = ReturnType<typeof createPolicyPreviewService>;
