// Dropping a signature the cluster abandoned (its slot died, or it never reached finality): its events
// leave every projection in one database transaction. Its transfers leave lists and totals (a settled
// override's transfer goes back to pending), an override it created leaves, an approval it made is
// undone, the vaults it named take their account as read at `finalized`, their days are marked for the
// metrics rollup, and `transaction.dropped` goes to the live feed and webhooks. Alerts already sent stay.
import { sql } from 'drizzle-orm';
import { queryRows, type Tx } from '../../storage/database.js';
import { writeAlerts } from '../alerts/alert-writes.js';
import { markDailyMetricsDirty } from '../analytics/metrics-dirty.js';
import { rebuildVaultStats } from '../vaults/vault-stats.js';
import type { VaultAccountRead } from './types.js';
import { fromUnix, tierIndex } from './vault-rows.js';

/** The event webhooks and the live feed carry for each vault a dropped signature named. */
export const DROPPED_EVENT = 'transaction.dropped' as const;

export interface DroppedSignature {
  readonly signature: string;
  readonly slot: number;
  /** The vaults its events named (their cached reads are stale now). */
  readonly vaults: readonly string[];
}

interface VaultRef {
  id: string;
  address: string;
  authority: string;
}

interface RemovedEvent {
  name: string;
  vault_address: string | null;
  data: Record<string, unknown>;
}

/**
 * Drops one signature still `confirmed`; null when it is not (finalized meanwhile, or already gone).
 * `vaultReads` are the accounts of the vaults it named, read at `finalized` before the transaction.
 */
export async function dropSignature(
  tx: Tx,
  input: { signature: string; vaultReads: ReadonlyMap<string, VaultAccountRead>; now: Date },
): Promise<DroppedSignature | null> {
  const { signature } = input;
  const [applied] = await queryRows<{ slot: number | string; block_time: Date | string | null }>(
    tx,
    sql`delete from chain_signatures where signature = ${signature} and commitment = 'confirmed'
        returning slot, block_time`,
  );
  if (applied === undefined) return null;
  const slot = Number(applied.slot);
  // A cursor on it steps back to the newest applied signature before it: history below that is complete.
  await tx.execute(sql`
    update chain_cursors c set (signature, slot) = (
      select s.signature, s.slot from chain_signatures s where s.slot <= ${slot} order by s.slot desc limit 1)
    where c.signature = ${signature}`);
  const events = await queryRows<RemovedEvent>(
    tx,
    sql`delete from chain_events where signature = ${signature} returning name, vault_address, data`,
  );
  const addresses = [...new Set(events.flatMap((e) => (e.vault_address === null ? [] : [e.vault_address])))];
  const vaults = await queryRows<VaultRef>(
    tx,
    sql`select id, address, authority from vaults
        where address in (select value from json_array_elements_text(${JSON.stringify(addresses)}::json))`,
  );
  const previous = await retractTransfers(tx, signature);
  await retractOverrides(tx, signature, events, vaults);
  const at = applied.block_time === null ? input.now : new Date(applied.block_time);
  for (const v of vaults) {
    const destinations = previous.filter((p) => p.vault_id === v.id && p.status === 'executed');
    await markDailyMetricsDirty(
      tx,
      v.id,
      at,
      destinations.map((p) => p.destination),
    );
  }
  await rebuildVaultStats(
    tx,
    vaults.map((v) => v.id),
  );
  await writeAlerts(
    tx,
    vaults.map((v) => ({
      name: DROPPED_EVENT,
      vaultId: v.id,
      vault: v.address,
      authority: v.authority,
      mark: `dropped:${signature}`,
      signature,
      slot,
      at: input.now,
      data: {
        signature,
        slot,
        vault: v.address,
        previousStatus: previous.find((p) => p.vault_id === v.id)?.status ?? null,
      },
    })),
  );
  for (const v of vaults) await restoreVault(tx, v, events, input.vaultReads.get(v.address));
  return { signature, slot, vaults: addresses };
}

/**
 * Its transfers leave; one that settled an approved override goes back to the pending transfer it was
 * (and its override back to approved). Returns each row's status before the drop.
 */
async function retractTransfers(
  tx: Tx,
  signature: string,
): Promise<{ vault_id: string; status: string; destination: string }[]> {
  const settled = await queryRows<{
    vault_id: string;
    status: string;
    destination: string;
    override_id: string;
  }>(
    tx,
    sql`update transactions set status = 'pending', signature = null, event_index = null,
          fee_collected = null, updated_at = now()
        where signature = ${signature} and status = 'executed' and override_id is not null
        returning vault_id, 'executed' as status, destination, override_id`,
  );
  if (settled.length > 0) {
    await tx.execute(sql`
      update overrides set status = 'approved', executed_at = null, updated_at = now()
      where status = 'executed'
        and id in (select value::uuid from json_array_elements_text(${JSON.stringify(settled.map((s) => s.override_id))}::json))`);
  }
  const removed = await queryRows<{ vault_id: string; status: string; destination: string }>(
    tx,
    sql`delete from transactions where signature = ${signature} returning vault_id, status, destination`,
  );
  return [...settled, ...removed];
}

/**
 * Overrides it created leave (the request of its blocked transfer, an on-chain override made without a
 * request), with the pending transfers of those; an approval it made is undone.
 */
async function retractOverrides(
  tx: Tx,
  signature: string,
  events: readonly RemovedEvent[],
  vaults: readonly VaultRef[],
): Promise<void> {
  const vaultId = new Map(vaults.map((v) => [v.address, v.id]));
  const keyed = (name: string) =>
    events
      .filter((e) => e.name === name && e.vault_address !== null && vaultId.has(e.vault_address))
      .map((e) => ({ vault_id: vaultId.get(e.vault_address as string), nonce: String(e.data.nonce) }));
  const created = JSON.stringify(keyed('OverrideCreated'));
  const removed = await queryRows<{ id: string }>(
    tx,
    sql`delete from overrides
        where transfer_signature = ${signature}
           or (transfer_signature is null and (vault_id, chain_nonce) in (
                 select r.vault_id, r.nonce::numeric
                 from json_to_recordset(${created}::json) as r(vault_id uuid, nonce text)))
        returning id`,
  );
  const approved = JSON.stringify(keyed('OverrideApproved'));
  const undone = await queryRows<{ id: string }>(
    tx,
    sql`update overrides set status = 'pending', approved_at = null, updated_at = now()
        where status = 'approved' and (vault_id, chain_nonce) in (
          select r.vault_id, r.nonce::numeric from json_to_recordset(${approved}::json) as r(vault_id uuid, nonce text))
        returning id`,
  );
  const gone = [...removed, ...undone].map((o) => o.id);
  if (gone.length === 0) return;
  // Their pending transfers (an approved override's, not sent yet) go with them.
  await tx.execute(sql`
    delete from transactions where status = 'pending' and signature is null
      and override_id in (select value::uuid from json_array_elements_text(${JSON.stringify(gone)}::json))`);
}

/**
 * The vault takes its account as the cluster finalized it (older than what it held: that is the point).
 * A vault whose creation was dropped and has no account at `finalized` leaves with everything it owns.
 */
async function restoreVault(
  tx: Tx,
  v: VaultRef,
  events: readonly RemovedEvent[],
  read: VaultAccountRead | undefined,
): Promise<void> {
  const account = read?.state;
  if (read === undefined || account === undefined) return;
  if (account === null) {
    const created = events.some(
      (e) => e.vault_address === v.address && (e.name === 'VaultCreated' || e.name === 'VaultInitialized'),
    );
    if (created) await tx.execute(sql`delete from vaults where id = ${v.id}`);
    return;
  }
  const lastReset = account.lastReset > 0n ? fromUnix(account.lastReset) : null;
  const whitelist = JSON.stringify(account.whitelist);
  await tx.execute(sql`
    update vaults set
      authority = ${account.authority}, agent_signer = ${account.agentSigner},
      daily_limit = ${account.dailyLimit.toString()}::numeric, spent_today = ${account.spentToday.toString()}::numeric,
      last_reset = ${lastReset?.toISOString() ?? null}::timestamptz, whitelist = (select coalesce(array_agg(value), '{}') from json_array_elements_text(${whitelist}::json)),
      whitelist_count = ${account.whitelistCount}, tier = ${tierIndex(account.tier)},
      fee_basis_points = ${account.feeBasisPoints},
      name = case when name_overridden then name else ${account.name} end,
      paused = ${account.paused}, vault_nonce = ${account.vaultNonce.toString()}::numeric,
      override_nonce = ${account.overrideNonce.toString()}::numeric, synced_slot = ${read.slot},
      updated_at = now()
    where id = ${v.id}`);
}
