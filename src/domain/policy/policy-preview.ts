// The policy what-if (POST /api/vaults/:address/policy-preview): the vault's transfer attempts of a
// period replayed under a proposed daily limit and whitelist (policy-replay.ts). One indexed range read
// of that vault's attempts: the cost grows with the vault's attempts in the period, not with the table.
import { sql } from 'drizzle-orm';
import { validationError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { parseLamports } from '../../lib/lamports.js';
import type { Storage } from '../../storage/database.js';
import { DAY_MS } from '../analytics/periods.js';
import type { BlockReason } from '../transactions/transaction-resource.js';
import { getVaultRow } from '../vaults/vault-reads.js';
import {
  type PolicyPreview,
  type PolicyPreviewBody,
  PREVIEW_DEFAULT_DAYS,
  PREVIEW_MAX_CHANGES,
  PREVIEW_MAX_DAYS,
} from './policy-preview-resource.js';
import { type ReplayAttempt, replayPolicy } from './policy-replay.js';

interface ReplayPolicy {
  readonly dailyLimit: bigint;
  readonly whitelist: readonly string[];
}

const CLOCK_SKEW_MS = 60_000;

export interface PolicyPreviewDeps {
  readonly storage: Storage;
  readonly clock: Clock;
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

/** Where the replayed attempts are: one vault's executed and blocked rows in [start, end]. */
const attemptsOf = (vaultId: string, start: Date, end: Date) => sql`
  from transactions
  where vault_id = ${vaultId} and timestamp >= ${start.toISOString()}::timestamptz
    and timestamp <= ${end.toISOString()}::timestamptz and status in ('executed', 'blocked')`;
/** The chain's order of attempts: block time, slot, then a stable tie-break. */
const CHAIN_ORDER = sql`timestamp, slot nulls last, signature, event_index, id`;

/**
 * The attempts in chain order, each reduced to what the rules read and packed into one text value
 * ("ms amount kind admitted" joined by commas): one row instead of thousands, so an embedded database
 * hands over 10 000 attempts in a few milliseconds. `admitted` is isAdmitted's rule in SQL: an empty
 * whitelist admits any destination.
 */
async function loadAttempts(
  storage: Storage,
  vaultId: string,
  period: { start: Date; end: Date },
  whitelist: readonly string[],
): Promise<ReplayAttempt[]> {
  const list = `{${whitelist.join(',')}}`;
  const [row] = await storage.rows<{ packed: string | null }>(sql`
    select string_agg(
      (extract(epoch from timestamp) * 1000)::bigint || ' ' || amount || ' ' ||
      case when status = 'blocked' then coalesce(block_reason, 'blocked')
           when override_id is null then 'executed' else 'override' end || ' ' ||
      (cardinality(${list}::text[]) = 0 or destination = any(${list}::text[]))::int,
      ',' order by ${CHAIN_ORDER}) as packed
    ${attemptsOf(vaultId, period.start, period.end)}`);
  if (row?.packed == null) return [];
  return row.packed.split(',').map((entry) => {
    const [ms, amount, kind, admitted] = entry.split(' ') as [string, string, string, string];
    const blocked = kind !== 'executed' && kind !== 'override';
    return {
      at: Number(ms),
      amount: BigInt(amount),
      status: blocked ? 'blocked' : 'executed',
      blockReason: blocked ? (kind as BlockReason) : null,
      override: kind === 'override',
      admitted: admitted === '1',
    };
  });
}

/** The listed changes' rows (signature, time, destination), by their positions in chain order. */
async function loadChangedRows(
  storage: Storage,
  vaultId: string,
  period: { start: Date; end: Date },
  positions: number[],
): Promise<Map<number, { signature: string | null; timestamp: Date; destination: string }>> {
  if (positions.length === 0) return new Map();
  const rows = await storage.rows<{
    position: number;
    signature: string | null;
    timestamp: Date | string;
    destination: string;
  }>(sql`
    select position, signature, timestamp, destination from (
      select (row_number() over (order by ${CHAIN_ORDER}))::int - 1 as position, signature, timestamp, destination
      ${attemptsOf(vaultId, period.start, period.end)}
    ) numbered
    where position = any(${`{${positions.join(',')}}`}::int[])`);
  return new Map(rows.map((r) => [r.position, { ...r, timestamp: new Date(r.timestamp) }]));
}

export function createPolicyPreviewService(deps: PolicyPreviewDeps) {
  return {
    /** Which of the vault's recent attempts would have gone differently under the proposed policy. */
    async preview(idOrAddress: string, body: PolicyPreviewBody): Promise<PolicyPreview> {
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
      const period = { start, end };
      const attempts = await loadAttempts(deps.storage, vault.id, period, proposed.whitelist);
      const { summary, changes, truncated } = replayPolicy(
        attempts,
        proposed.dailyLimit,
        PREVIEW_MAX_CHANGES,
      );
      const rows = await loadChangedRows(
        deps.storage,
        vault.id,
        period,
        changes.map((c) => c.index),
      );
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
        changes: changes.map(({ index, attempt, would, wouldReason }) => {
          const row = rows.get(index);
          return {
            signature: row?.signature ?? null,
            timestamp: (row?.timestamp ?? new Date(attempt.at)).toISOString(),
            destination: row?.destination ?? '',
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
