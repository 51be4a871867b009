// Writes a folded batch back in a few bulk statements (no per-event round trips).
import { type SQL, sql } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import { queryRows, type Tx } from '../../storage/database.js';
import {
  blinks,
  dailyMetricsDirty,
  GLOBAL_METRICS_KEY,
  overrides,
  vaults,
} from '../../storage/schema/index.js';
import { writeIngestionAlerts } from '../alerts/ingestion-alerts.js';
import { type DestinationMark, markDestinationsDirty } from '../analytics/metrics-dirty.js';
import { insertAuditEntries } from '../audit/audit-service.js';
import { recordTransactionStats } from '../vaults/vault-stats.js';
import { enqueueWebhookEvent } from '../webhooks/outbox.js';
import type { ProjectionOutput } from './batch-io.js';
import type { BatchState } from './batch-state.js';
import { jsonRows } from './event-log.js';

const excluded = (column: PgColumn): SQL => sql.raw(`excluded."${column.name}"`);

export async function writeProjections(tx: Tx, state: BatchState, out: ProjectionOutput): Promise<void> {
  await writeVaults(tx, state);
  await writeOverrides(tx, state, out);
  await writeTransactions(tx, state);
  await writeDirtyDays(tx, out);
  await writeDirtyDestinations(tx, state);
  await writeWebhooks(tx, out);
  await writeIngestionAlerts(tx, out.spends, out.attempts);
  await insertAuditEntries(tx, out.audits);
}

async function writeVaults(tx: Tx, state: BatchState): Promise<void> {
  const dirty = [...state.vaults.values()].filter((v) => v.dirty);
  if (dirty.length === 0) return;
  // The counters are left alone here: recordTransactionStats moves them with the transactions.
  const rows = dirty.map(({ row }) => row);
  await tx
    .insert(vaults)
    .values(rows)
    .onConflictDoUpdate({
      target: vaults.address,
      set: {
        authority: excluded(vaults.authority),
        agentSigner: excluded(vaults.agentSigner),
        depositAddress: excluded(vaults.depositAddress),
        dailyLimit: excluded(vaults.dailyLimit),
        spentToday: excluded(vaults.spentToday),
        lastReset: excluded(vaults.lastReset),
        // The owner's off-chain rename wins over the on-chain name, even if it lands meanwhile.
        name: sql`case when ${vaults.nameOverridden} then ${vaults.name} else ${excluded(vaults.name)} end`,
        tier: excluded(vaults.tier),
        feeBasisPoints: excluded(vaults.feeBasisPoints),
        paused: excluded(vaults.paused),
        whitelist: excluded(vaults.whitelist),
        whitelistCount: excluded(vaults.whitelistCount),
        vaultNonce: excluded(vaults.vaultNonce),
        overrideNonce: excluded(vaults.overrideNonce),
        createdSlot: excluded(vaults.createdSlot),
        syncedSlot: excluded(vaults.syncedSlot),
        createdAt: excluded(vaults.createdAt),
        updatedAt: excluded(vaults.updatedAt),
      },
    });
}

async function writeOverrides(tx: Tx, state: BatchState, out: ProjectionOutput): Promise<void> {
  const dirty = [...state.overrides.values()].filter((o) => o.dirty).map((o) => o.row);
  if (dirty.length > 0) {
    await tx
      .insert(overrides)
      .values(dirty)
      .onConflictDoUpdate({
        target: overrides.id,
        set: {
          chainNonce: excluded(overrides.chainNonce),
          destination: excluded(overrides.destination),
          amount: excluded(overrides.amount),
          reason: sql`coalesce(${excluded(overrides.reason)}, ${overrides.reason})`,
          status: excluded(overrides.status),
          expiresAt: excluded(overrides.expiresAt),
          approvedAt: excluded(overrides.approvedAt),
          executedAt: excluded(overrides.executedAt),
          updatedAt: excluded(overrides.updatedAt),
        },
      });
  }
  if (out.blinks.length > 0) await tx.insert(blinks).values(out.blinks).onConflictDoNothing();
}

async function writeTransactions(tx: Tx, state: BatchState): Promise<void> {
  const dirty = state.transactions.filter((t) => t.dirty);
  if (dirty.length === 0) return;
  const rows = dirty.map(({ row }) => ({
    id: row.id,
    vault_id: row.vaultId,
    signature: row.signature,
    event_index: row.eventIndex,
    destination: row.destination,
    amount: row.amount,
    fee_collected: row.feeCollected,
    status: row.status,
    block_reason: row.blockReason,
    override_id: row.overrideId,
    slot: row.slot,
    timestamp: row.timestamp,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
  }));
  // A new row is inserted; a pending transfer that executed is updated in place (same id).
  await tx.execute(sql`
    insert into transactions (id, vault_id, signature, event_index, destination, amount, fee_collected, status,
                              block_reason, override_id, slot, timestamp, created_at, updated_at)
    select r.id, r.vault_id, r.signature, r.event_index, r.destination, r.amount, r.fee_collected, r.status,
           r.block_reason, r.override_id, r.slot, r.timestamp, r.created_at, r.updated_at
    from json_to_recordset(${jsonRows(rows)}::json) as r(
      id uuid, vault_id uuid, signature text, event_index int, destination text, amount numeric,
      fee_collected numeric, status text, block_reason text, override_id uuid, slot bigint,
      timestamp timestamptz, created_at timestamptz, updated_at timestamptz)
    on conflict (id) do update set
      signature = excluded.signature, event_index = excluded.event_index, destination = excluded.destination,
      amount = excluded.amount, fee_collected = excluded.fee_collected, status = excluded.status,
      slot = excluded.slot, timestamp = excluded.timestamp, updated_at = excluded.updated_at`);
  await recordTransactionStats(
    tx,
    dirty.map((t) => ({
      vaultId: t.row.vaultId,
      previousStatus: t.loadedStatus,
      status: t.row.status,
      amount: t.row.amount,
    })),
  );
}

/** Same marks as markDailyMetricsDirty, in one statement for the whole batch. */
async function writeDirtyDays(tx: Tx, out: ProjectionOutput): Promise<void> {
  if (out.dirtyDays.size === 0) return;
  const marks = new Map<string, { vaultKey: string; day: string }>();
  for (const { vaultId, day } of out.dirtyDays.values()) {
    marks.set(`${vaultId}|${day}`, { vaultKey: vaultId, day });
    marks.set(`${GLOBAL_METRICS_KEY}|${day}`, { vaultKey: GLOBAL_METRICS_KEY, day });
  }
  await tx
    .insert(dailyMetricsDirty)
    .values([...marks.values()])
    .onConflictDoUpdate({
      target: [dailyMetricsDirty.vaultKey, dailyMetricsDirty.day],
      set: { markedAt: sql`now()` },
    });
}

/** The destinations of the executed transfers the batch wrote, after the day marks. */
async function writeDirtyDestinations(tx: Tx, state: BatchState): Promise<void> {
  const marks = new Map<string, DestinationMark>();
  for (const { row, dirty } of state.transactions) {
    if (!dirty || row.status !== 'executed') continue;
    const day = row.timestamp.toISOString().slice(0, 10);
    marks.set(`${row.vaultId}|${day}|${row.destination}`, {
      vaultId: row.vaultId,
      day,
      destination: row.destination,
    });
  }
  await markDestinationsDirty(tx, [...marks.values()]);
}

/** One look-up for the batch; the outbox is called only for events some subscription wants. */
async function writeWebhooks(tx: Tx, out: ProjectionOutput): Promise<void> {
  if (out.webhooks.length === 0) return;
  const vaultIds = [...new Set(out.webhooks.map((w) => w.vaultId))];
  const owners = [...new Set(out.webhooks.map((w) => w.authority))];
  const subscriptions = await queryRows<{ vault_id: string | null; owner: string; events: string[] }>(
    tx,
    sql`
    select vault_id, owner, events from webhooks
    where active and (vault_id in ${vaultIds} or (vault_id is null and owner in ${owners}))
  `,
  );
  if (subscriptions.length === 0) return;
  for (const event of out.webhooks) {
    const wanted = subscriptions.some(
      (s) =>
        s.events.includes(event.event) &&
        (s.vault_id === event.vaultId || (s.vault_id === null && s.owner === event.authority)),
    );
    if (wanted) await enqueueWebhookEvent(tx, event);
  }
}
