// What one batch's projection reads (state, chain reads, links) and what it produces (rows aside): the
// handlers' toolkit and the row helpers both speak these.
import type { SolanaCluster } from '../../config.js';
import type { AttemptFact, SpendFact } from '../alerts/ingestion-alerts.js';
import type { AuditRecord } from '../audit/audit-service.js';
import type { OutboxEvent } from '../webhooks/outbox.js';
import type { BatchState } from './batch-state.js';
import type { OverrideAccountState, VaultAccountRead } from './types.js';

export interface IngestionWarning {
  kind:
    | 'unknown_event'
    | 'malformed_event'
    | 'truncated_logs'
    | 'vault_unknown'
    | 'override_unknown'
    | 'blocked_without_request';
  signature: string;
  detail: string;
}

export interface ProjectionInput {
  state: BatchState;
  cluster: SolanaCluster;
  vaultReads: ReadonlyMap<string, VaultAccountRead>;
  overrideReads: ReadonlyMap<string, OverrideAccountState>;
  publicBaseUrl: string;
  now: Date;
}

export interface ProjectionOutput {
  blinks: { id: string; overrideId: string; url: string }[];
  /** UTC days whose metrics changed, by `${vaultId}|${YYYY-MM-DD}`. */
  dirtyDays: Map<string, { vaultId: string; day: string }>;
  webhooks: OutboxEvent[];
  /** Addresses of vaults whose cached reads are now stale. */
  touchedVaults: Set<string>;
  warnings: IngestionWarning[];
  /** Executed transfers and every transfer attempt: what the alerts are derived from. */
  spends: SpendFact[];
  attempts: AttemptFact[];
  /** The owner's acts seen on chain (policy, pause/resume, approvals), for the audit trail. */
  audits: AuditRecord[];
}
