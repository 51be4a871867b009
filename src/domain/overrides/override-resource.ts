// The override resource: its schema (the API's and the override.* webhooks'), type, addresses and
// links, and the row → resource mapping; Blinks reuse these.
import { and, eq, isNull, or, type SQL } from 'drizzle-orm';
import { type Static, Type } from 'typebox';
import { Address, Lamports, NullableString, StringEnum, Timestamp } from '../../lib/json-schema.js';
import { OVERRIDE_STATUSES, type OverrideStatus, overrides } from '../../storage/schema/overrides.js';
import { isOverrideExpired } from './override-lifecycle.js';

/**
 * Where an override lives: the first override that announced a nonce in a vault is addressed by
 * (vault, nonce); every later one by (vault, nonce, signature), the signature going in `?transfer=`.
 */
export interface OverrideAddress {
  readonly vault: string;
  readonly nonce: bigint | string;
  /** Null for the first request of the nonce. */
  readonly transfer: string | null;
}

/**
 * The rows an address names, within its vault: the nonce's first request, or the request of that
 * transfer (a first request is also found by its own transfer's signature).
 */
export function overrideAddressFilter(nonce: bigint, transfer: string | undefined): SQL | undefined {
  if (transfer === undefined) return and(eq(overrides.nonce, nonce), isNull(overrides.addressSignature));
  return and(
    eq(overrides.nonce, nonce),
    or(eq(overrides.addressSignature, transfer), eq(overrides.transferSignature, transfer)),
  );
}

/** `?transfer=<signature>` when the address needs one, else the empty string. */
const transferQuery = (transfer: string | null): string =>
  transfer === null ? '' : `?transfer=${encodeURIComponent(transfer)}`;

/** The Blink (Solana Action) URL of a request: `{PUBLIC_BASE_URL}/api/actions/{vault}/{nonce}[?transfer=…]`. */
export function buildBlinkUrl(publicBaseUrl: string, address: OverrideAddress, action = ''): string {
  return `${publicBaseUrl}/api/actions/${address.vault}/${address.nonce}${action}${transferQuery(address.transfer)}`;
}

/** The approval page a person opens from e-mail or chat: `{PUBLIC_BASE_URL}/overrides/{vault}/{nonce}[?transfer=…]`. */
export function buildApprovalUrl(publicBaseUrl: string, address: OverrideAddress): string {
  return `${publicBaseUrl}/overrides/${address.vault}/${address.nonce}${transferQuery(address.transfer)}`;
}

export interface OverrideRecord {
  id: string;
  vaultId: string;
  vaultAddress: string;
  nonce: bigint;
  transferSignature: string | null;
  addressSignature: string | null;
  chainNonce: bigint | null;
  destination: string;
  amount: bigint;
  /** The block reason of the attempt that asked for it; null for overrides the owner requested. */
  reason: string | null;
  status: OverrideStatus;
  expiresAt: Date;
  createdAt: Date;
  approvedAt: Date | null;
  rejectedAt: Date | null;
  executedAt: Date | null;
}

export const OverrideResource = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    vaultId: Type.String({ format: 'uuid', description: 'the vault record id' }),
    vault: Address('the vault address'),
    nonce: Type.String({
      pattern: '^[0-9]+$',
      description:
        'the override nonce its blocked transfer announced; with transferSignature it identifies the override within its vault',
    }),
    transferSignature: NullableString({
      description:
        'the blocked transaction this override lets through once approved; null for an override created on chain without one',
    }),
    chainNonce: NullableString({
      description:
        'the nonce of its on-chain PendingOverride once created (the chain may give a later nonce than announced)',
    }),
    destination: Address(),
    amount: Lamports(),
    blockReason: NullableString({
      description:
        'why the program blocked the transfer that asked for it (not_whitelisted, exceeded_daily_limit, insufficient_funds); null when the owner requested it',
    }),
    status: StringEnum(OVERRIDE_STATUSES),
    expiresAt: Timestamp(),
    createdAt: Timestamp(),
    decidedAt: NullableString({
      format: 'date-time',
      description:
        'when the owner decided: the approval seen on chain, or the rejection; null while pending or expired',
    }),
    expired: Type.Boolean({ description: 'pending and past expiresAt: it can no longer be approved' }),
    blinkUrl: Type.String({
      format: 'uri',
      description: 'its Blink: the Solana Action URL a wallet opens to approve or reject it',
    }),
    approvalUrl: Type.String({
      format: 'uri',
      description: 'the approval page for a plain browser, where a wallet approves or rejects it',
    }),
  },
  { title: 'Override' },
);
export type OverrideResource = Static<typeof OverrideResource>;

export function toOverrideResource(
  record: OverrideRecord,
  context: { publicBaseUrl: string; now: Date },
): OverrideResource {
  const address = { vault: record.vaultAddress, nonce: record.nonce, transfer: record.addressSignature };
  return {
    id: record.id,
    vaultId: record.vaultId,
    vault: record.vaultAddress,
    nonce: record.nonce.toString(),
    transferSignature: record.transferSignature,
    chainNonce: record.chainNonce === null ? null : record.chainNonce.toString(),
    destination: record.destination,
    amount: record.amount.toString(),
    blockReason: record.reason,
    status: record.status,
    expiresAt: record.expiresAt.toISOString(),
    createdAt: record.createdAt.toISOString(),
    decidedAt: decidedAt(record)?.toISOString() ?? null,
    expired: isOverrideExpired(record.status, record.expiresAt, context.now),
    blinkUrl: buildBlinkUrl(context.publicBaseUrl, address),
    approvalUrl: buildApprovalUrl(context.publicBaseUrl, address),
  };
}

/** An approval is decided when it lands on chain (an executed one may be seen before its approval). */
const decidedAt = (record: OverrideRecord): Date | null =>
  record.approvedAt ?? record.rejectedAt ?? record.executedAt;

/** A cached resource with `expired` recomputed for now (expiry passes while the entry is cached). */
export function withCurrentExpiry(resource: OverrideResource, now: Date): OverrideResource {
  const expired = isOverrideExpired(resource.status, resource.expiresAt, now);
  return expired === resource.expired ? resource : { ...resource, expired };
}
