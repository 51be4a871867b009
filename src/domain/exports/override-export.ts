// The overrides export: one row per override (a request to let a blocked transfer through), by the
// time it was created, oldest first; its columns are listed in docs/API.md, Exports.
import { sql } from 'drizzle-orm';
import type { Storage } from '../../storage/database.js';
import { isoTimestamp } from '../../storage/prepared-rows.js';
import { type ExportColumn, lamportsToSolText } from './export-format.js';
import { type ExportScope, exportBatchRange, nameExportVaults } from './export-scope.js';
import type { RowSource } from './export-stream.js';

export interface OverrideExportRow {
  id: string;
  nonce: string;
  vault_id: string;
  vault: string;
  vault_name: string;
  status: string;
  expired: boolean;
  amount: string;
  destination: string;
  reason: string | null;
  transfer_signature: string | null;
  created_at: string;
  expires_at: string;
  approved_at: string | null;
  rejected_at: string | null;
  executed_at: string | null;
}

export const OVERRIDE_EXPORT_COLUMNS: readonly ExportColumn<OverrideExportRow>[] = [
  { name: 'nonce', value: (r) => r.nonce },
  { name: 'vault', value: (r) => r.vault },
  { name: 'vault_name', value: (r) => r.vault_name, freeText: true },
  { name: 'status', value: (r) => r.status },
  { name: 'expired', value: (r) => r.expired },
  { name: 'amount_lamports', value: (r) => r.amount },
  { name: 'amount_sol', value: (r) => lamportsToSolText(r.amount) },
  { name: 'destination', value: (r) => r.destination },
  { name: 'block_reason', value: (r) => r.reason },
  { name: 'transfer_signature', value: (r) => r.transfer_signature },
  { name: 'created_at', value: (r) => r.created_at },
  { name: 'expires_at', value: (r) => r.expires_at },
  { name: 'approved_at', value: (r) => r.approved_at },
  { name: 'rejected_at', value: (r) => r.rejected_at },
  { name: 'executed_at', value: (r) => r.executed_at },
];

const iso = (column: string) => sql.raw(isoTimestamp(column));

/** The scope's overrides by (created_at, id); `expired`: still pending past its expiry at `now`. */
export function createOverrideExportSource(
  storage: Storage,
  scope: ExportScope,
  now: Date,
): RowSource<OverrideExportRow> {
  return {
    async readBatch(after, limit) {
      const position = after === null ? null : { time: after.created_at, id: after.id };
      const rows = await storage.rows<OverrideExportRow>(sql`
        select o.id, o.nonce::text as nonce, o.vault_id, o.status,
          (o.status = 'pending' and o.expires_at <= ${now.toISOString()}::timestamptz) as expired,
          o.amount::text as amount, o.destination, o.reason, o.transfer_signature,
          ${iso('o.created_at')} as created_at, ${iso('o.expires_at')} as expires_at,
          ${iso('o.approved_at')} as approved_at, ${iso('o.rejected_at')} as rejected_at,
          ${iso('o.executed_at')} as executed_at
        from overrides o
        where ${exportBatchRange(scope, 'o', 'created_at', position)}
        limit ${limit}`);
      return nameExportVaults(scope, rows);
    },
  };
}
