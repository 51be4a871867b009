// The transactions export: its columns (docs/API.md, Exports) and its keyset query, oldest first.
import { sql } from 'drizzle-orm';
import type { Storage } from '../../storage/database.js';
import { isoTimestamp } from '../../storage/prepared-rows.js';
import { type ExportColumn, lamportsToSolText } from './export-format.js';
import { type ExportScope, exportBatchRange, nameExportVaults } from './export-scope.js';
import type { RowSource } from './export-stream.js';

export interface TransactionExportRow {
  id: string;
  signature: string | null;
  slot: string | null;
  block_time: string;
  vault_id: string;
  vault: string;
  vault_name: string;
  status: string;
  amount: string;
  fee_collected: string | null;
  destination: string;
  block_reason: string | null;
  override_nonce: string | null;
  commitment: string;
}

export const TRANSACTION_EXPORT_COLUMNS: readonly ExportColumn<TransactionExportRow>[] = [
  { name: 'signature', value: (r) => r.signature },
  { name: 'slot', value: (r) => (r.slot === null ? null : Number(r.slot)) },
  { name: 'block_time', value: (r) => r.block_time },
  { name: 'vault', value: (r) => r.vault },
  { name: 'vault_name', value: (r) => r.vault_name, freeText: true },
  { name: 'status', value: (r) => r.status },
  { name: 'amount_lamports', value: (r) => r.amount },
  { name: 'amount_sol', value: (r) => lamportsToSolText(r.amount) },
  { name: 'fee_lamports', value: (r) => (r.status === 'executed' ? (r.fee_collected ?? '0') : null) },
  { name: 'destination', value: (r) => r.destination },
  { name: 'block_reason', value: (r) => (r.status === 'blocked' ? r.block_reason : null) },
  { name: 'override_nonce', value: (r) => r.override_nonce },
  { name: 'commitment', value: (r) => r.commitment },
];

/** The scope's transactions by (block time, id), each batch one index range after the last row read. */
export function createTransactionExportSource(
  storage: Storage,
  scope: ExportScope,
): RowSource<TransactionExportRow> {
  return {
    async readBatch(after, limit) {
      const position = after === null ? null : { time: after.block_time, id: after.id };
      const rows = await storage.rows<TransactionExportRow>(sql`
        select t.id, t.signature, t.slot::text as slot, ${sql.raw(isoTimestamp('t.timestamp'))} as block_time,
          t.vault_id, t.status, t.amount::text as amount, t.fee_collected::text as fee_collected,
          t.destination, t.block_reason, o.nonce::text as override_nonce, t.commitment
        from transactions t
        left join overrides o on o.id = t.override_id
        where ${exportBatchRange(scope, 't', 'timestamp', position)}
        limit ${limit}`);
      return nameExportVaults(scope, rows);
    },
  };
}
