// The alerts ingestion derives from the transfers it applies, in the same transaction: budget thresholds
// crossed by executed transfers, and velocity from the attempts' block times. Marks make each unique.
import { sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../storage/database.js';
import { jsonRows } from '../ingestion/event-log.js';
import { WINDOW_SECONDS } from '../policy/program-limits.js';
import { type AlertSettings, toAlertSettings } from './alert-settings.js';
import { type AlertEvent, claimAndWriteAlerts, writeAlerts } from './alert-writes.js';

const WINDOW_MS = Number(WINDOW_SECONDS) * 1000;

/** An executed transfer (an agent's or an executed override), with the vault as the chain had it after. */
export interface SpendFact {
  vaultId: string;
  vault: string;
  authority: string;
  signature: string;
  slot: number;
  at: Date;
  amount: bigint;
  spentToday: bigint;
  dailyLimit: bigint;
  /** The program's `last_reset` as ingestion knows it (null: never read). */
  lastReset: Date | null;
}

/** A transfer attempt (executed or blocked). */
export interface AttemptFact {
  vaultId: string;
  vault: string;
  authority: string;
  agentSigner: string;
  signature: string;
  slot: number;
  at: Date;
}

/** Writes the alerts the batch's transfers cause (after its transactions are written). */
export async function writeIngestionAlerts(
  tx: Tx,
  spends: readonly SpendFact[],
  attempts: readonly AttemptFact[],
): Promise<void> {
  if (spends.length === 0 && attempts.length === 0) return;
  const vaultIds = [...new Set([...spends, ...attempts].map((f) => f.vaultId))];
  const settings = await loadSettings(tx, vaultIds);
  const budget = spends.flatMap((s) => findThresholdsCrossed(s, settings.get(s.vaultId)!));
  await claimAndWriteAlerts(tx, budget);
  await writeVelocityAlerts(tx, attempts, settings);
}

async function loadSettings(tx: Tx, vaultIds: string[]): Promise<Map<string, AlertSettings>> {
  const rows = await queryRows<{
    vault_id: string;
    budget_thresholds: number[];
    velocity_window_seconds: number | null;
    velocity_max_transfers: number | null;
    expiry_warning_minutes: number;
  }>(tx, sql`select * from vault_alert_settings where vault_id in ${vaultIds}`);
  const byVault = new Map(
    rows.map((r) => [
      r.vault_id,
      toAlertSettings({
        vaultId: r.vault_id,
        budgetThresholds: r.budget_thresholds,
        velocityWindowSeconds: r.velocity_window_seconds,
        velocityMaxTransfers: r.velocity_max_transfers,
        expiryWarningMinutes: r.expiry_warning_minutes,
        updatedAt: new Date(0),
      }),
    ]),
  );
  return new Map(vaultIds.map((id) => [id, byVault.get(id) ?? toAlertSettings(undefined)]));
}

/**
 * The thresholds this transfer took the window's spending across: from below `t %` of the limit
 * (spent before it = spentToday − amount, the program adding the amount to the window) to at or above.
 * Only in the window the vault's `last_reset` names: a transfer of a window already over when
 * ingestion read the vault (history backfilled later) warns no one.
 */
export function findThresholdsCrossed(spend: SpendFact, settings: AlertSettings): AlertEvent[] {
  const { lastReset, at, spentToday, amount, dailyLimit } = spend;
  if (lastReset === null || dailyLimit <= 0n) return [];
  if (at < lastReset || at.getTime() >= lastReset.getTime() + WINDOW_MS) return [];
  const before = spentToday - amount;
  const windowStart = Math.floor(lastReset.getTime() / 1000);
  return settings.budgetThresholds
    .filter((t) => before * 100n < BigInt(t) * dailyLimit && spentToday * 100n >= BigInt(t) * dailyLimit)
    .map((threshold) => ({
      name: 'budget.threshold',
      vaultId: spend.vaultId,
      vault: spend.vault,
      authority: spend.authority,
      mark: `budget:${windowStart}:${threshold}`,
      signature: spend.signature,
      slot: spend.slot,
      at,
      data: {
        vault: spend.vault,
        threshold,
        dailyLimit: dailyLimit.toString(),
        spentToday: spentToday.toString(),
        remaining: (spentToday >= dailyLimit ? 0n : dailyLimit - spentToday).toString(),
        windowStart: lastReset.toISOString(),
        resetsAt: new Date(lastReset.getTime() + WINDOW_MS).toISOString(),
        signature: spend.signature,
      },
    }));
}

interface VelocityCount {
  vault_id: string;
  count: number | string;
  since: Date | string | null;
}

/**
 * For each vault with velocity on: its attempts in the window ending at its newest attempt of the batch;
 * over the limit, the vault's `velocity` mark moves to that time unless an alert came within the window.
 */
async function writeVelocityAlerts(
  tx: Tx,
  attempts: readonly AttemptFact[],
  settings: ReadonlyMap<string, AlertSettings>,
): Promise<void> {
  const newest = new Map<string, AttemptFact>();
  for (const a of attempts) {
    if (settings.get(a.vaultId)?.velocity == null) continue;
    const seen = newest.get(a.vaultId);
    if (seen === undefined || a.at >= seen.at) newest.set(a.vaultId, a);
  }
  if (newest.size === 0) return;
  const probes = [...newest.values()].map((a) => ({
    vault_id: a.vaultId,
    at: a.at,
    window: settings.get(a.vaultId)!.velocity!.windowSeconds,
  }));
  const counts = await queryRows<VelocityCount>(
    tx,
    sql`
      select p.vault_id, c.count, c.since
      from json_to_recordset(${jsonRows(probes)}::json) as p(vault_id uuid, at timestamptz, "window" int)
      cross join lateral (
        select count(*) as count, min(t.timestamp) as since from transactions t
        where t.vault_id = p.vault_id and t.status in ('executed', 'blocked')
          and t.timestamp > p.at - make_interval(secs => p."window") and t.timestamp <= p.at) as c`,
  );
  const over = counts.filter((c) => Number(c.count) > settings.get(c.vault_id)!.velocity!.maxTransfers);
  for (const c of over) {
    const attempt = newest.get(c.vault_id)!;
    const velocity = settings.get(c.vault_id)!.velocity!;
    const [claimed] = await queryRows<{ vault_id: string }>(
      tx,
      sql`
        insert into alert_marks (vault_id, mark, at) values (${c.vault_id}, 'velocity', ${attempt.at})
        on conflict (vault_id, mark) do update set at = excluded.at
        where alert_marks.at + make_interval(secs => ${velocity.windowSeconds}) <= excluded.at
        returning vault_id`,
    );
    if (claimed === undefined) continue;
    await writeAlerts(tx, [
      {
        name: 'agent.velocity',
        vaultId: attempt.vaultId,
        vault: attempt.vault,
        authority: attempt.authority,
        mark: `velocity:${Math.floor(attempt.at.getTime() / 1000)}`,
        signature: attempt.signature,
        slot: attempt.slot,
        at: attempt.at,
        data: {
          vault: attempt.vault,
          agentSigner: attempt.agentSigner,
          windowSeconds: velocity.windowSeconds,
          maxTransfers: velocity.maxTransfers,
          count: Number(c.count),
          since: new Date(c.since ?? attempt.at).toISOString(),
        },
      },
    ]);
  }
}
