// The audit entry resource: who did what to an owner's records, from where, and how it ended.
import { type Static, Type } from 'typebox';
import { NullableString, Timestamp } from '../../lib/json-schema.js';
import type { AuditEntryRow } from '../../storage/schema/index.js';

export const AuditEntry = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    at: Timestamp('when it happened (for chain acts, the block time)'),
    actor: Type.String({
      description: '`wallet:<address>`, `key:<API key id>`, or `chain:<signature>` for an act seen on chain',
    }),
    action: Type.String({ description: 'what was done, e.g. `webhook.rotate_secret` (docs/AUDIT.md)' }),
    target: Type.String({ description: 'what it was done to, e.g. `webhook:<id>`, `vault:<address>`' }),
    vault: NullableString({ description: 'the vault concerned, when one is' }),
    requestId: NullableString({ description: 'the request id (X-Request-Id); null for chain acts' }),
    client: NullableString({
      description: "the client's network (IPv4 /24, IPv6 /48); null for chain acts",
    }),
    outcome: Type.String({
      description:
        '`ok`, or `refused:<error code>` (e.g. `refused:INSUFFICIENT_SCOPE`), or `failed:<error code>`',
    }),
  },
  { $id: 'AuditEntry', description: 'One entry of the audit trail (append-only)' },
);
export type AuditEntry = Static<typeof AuditEntry>;

export function toAuditEntry(row: AuditEntryRow): AuditEntry {
  return {
    id: row.id,
    at: row.at.toISOString(),
    actor: row.actor,
    action: row.action,
    target: row.target,
    vault: row.vault,
    requestId: row.requestId,
    client: row.client,
    outcome: row.outcome,
  };
}
