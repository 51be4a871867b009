// The owner's acts ingestion sees on chain, as audit entries: policy changes, pause and resume, and
// approvals. The actor is the transaction (`chain:<signature>`); the owner is the vault's authority.
import type { AuditRecord } from './audit-service.js';

const CHAIN_ACTIONS: Readonly<Record<string, string>> = {
  'policy.updated': 'policy.update',
  'vault.paused': 'vault.pause',
  'vault.resumed': 'vault.resume',
  'override.approved': 'override.approve',
};

export interface ChainAct {
  /** The webhook event the projection raised for it. */
  readonly event: string;
  readonly vault: string;
  readonly authority: string;
  readonly signature: string;
  /** The event's index in its transaction: one transaction may hold several acts. */
  readonly index: number;
  readonly at: Date;
  /** The override's nonce, for approvals. */
  readonly nonce?: string | undefined;
}

/** The audit entry of a chain act, or null for events that are not an owner's act. */
export function toChainAuditRecord(act: ChainAct): AuditRecord | null {
  const action = CHAIN_ACTIONS[act.event];
  if (action === undefined) return null;
  const target = act.nonce === undefined ? `vault:${act.vault}` : `override:${act.vault}/${act.nonce}`;
  return {
    owner: act.authority,
    vault: act.vault,
    actor: `chain:${act.signature}`,
    action,
    target,
    requestId: null,
    client: null,
    outcome: 'ok',
    at: act.at,
    dedupeKey: `${act.signature}:${act.index}:${act.event}`,
  };
}
