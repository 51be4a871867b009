// `override.expiring` and `override.expired`: found by a scheduled job any worker may run. Each is
// claimed by its mark in the transaction that writes it, so two workers never both send one.
import { eq, inArray, sql } from 'drizzle-orm';
import { type Database, queryRows } from '../../storage/database.js';
import { overrides, vaults } from '../../storage/schema/index.js';
import { toOverrideResource } from '../overrides/override-resource.js';
import { DEFAULT_ALERT_SETTINGS } from './alert-settings.js';
import { type AlertEvent, writeAlerts } from './alert-writes.js';

/** An override that expired longer ago than this when first seen (history backfilled later) gets no alert. */
export const EXPIRED_ALERT_HORIZON_HOURS = 24;

export interface ExpiryAlertOptions {
  readonly now: Date;
  readonly publicBaseUrl: string;
  /** Overrides claimed per transaction. */
  readonly limit?: number;
}

/** One pass: claims and writes the expiry alerts due now, in batches; returns how many were written. */
export async function runExpiryAlerts(db: Database, options: ExpiryAlertOptions): Promise<number> {
  let written = 0;
  for (;;) {
    const batch = await db.transaction((tx) => claimBatch(tx, options));
    written += batch;
    if (batch < (options.limit ?? 200)) return written;
  }
}

type Tx = Parameters<Parameters<Database['transaction']>[0]>[0];

async function claimBatch(tx: Tx, options: ExpiryAlertOptions): Promise<number> {
  const { now, limit = 200 } = options;
  const claimed = await queryRows<{ id: string; mark: string }>(
    tx,
    sql`
      with due as (
        select o.id, o.vault_id,
               (case when o.expires_at <= ${now} then 'expired:' else 'expiring:' end) || o.id::text as mark
        from overrides o left join vault_alert_settings s on s.vault_id = o.vault_id
        where o.status = 'pending'
          and o.expires_at > ${now}::timestamptz - make_interval(hours => ${EXPIRED_ALERT_HORIZON_HOURS})
          and o.expires_at <= ${now}::timestamptz + make_interval(mins => coalesce(s.expiry_warning_minutes,
                ${DEFAULT_ALERT_SETTINGS.expiryWarningMinutes}))
      ), fresh as (
        select * from due d
        where not exists (select 1 from alert_marks m where m.vault_id = d.vault_id and m.mark = d.mark)
        limit ${limit}
      ), won as (
        insert into alert_marks (vault_id, mark, at) select vault_id, mark, ${now} from fresh
        on conflict do nothing returning mark
      )
      select f.id, f.mark from fresh f join won w on w.mark = f.mark`,
  );
  if (claimed.length === 0) return 0;
  const rows = await tx
    .select({ override: overrides, address: vaults.address, authority: vaults.authority })
    .from(overrides)
    .innerJoin(vaults, eq(vaults.id, overrides.vaultId))
    .where(
      inArray(
        overrides.id,
        claimed.map((c) => c.id),
      ),
    );
  const byId = new Map(rows.map((r) => [r.override.id, r]));
  const alerts = claimed.flatMap((c): AlertEvent[] => {
    const row = byId.get(c.id);
    if (row === undefined) return [];
    const resource = toOverrideResource(
      { ...row.override, vaultAddress: row.address },
      { publicBaseUrl: options.publicBaseUrl, now },
    );
    const expiring = c.mark.startsWith('expiring:');
    const msLeft = row.override.expiresAt.getTime() - now.getTime();
    return [
      {
        name: expiring ? 'override.expiring' : 'override.expired',
        vaultId: row.override.vaultId,
        vault: row.address,
        authority: row.authority,
        mark: c.mark,
        signature: null,
        slot: null,
        at: now,
        data: expiring ? { ...resource, minutesLeft: Math.ceil(msLeft / 60_000) } : { ...resource },
      },
    ];
  });
  await writeAlerts(tx, alerts);
  return claimed.length;
}
