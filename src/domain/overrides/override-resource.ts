// Override row → API object; webhooks (override.*) and Blinks reuse these.
import { and, eq, isNull, or, type SQL } from 'drizzle-orm';
import { type OverrideStatus, overrides } from '../../storage/schema/overrides.js';

/**
 * Where an approval request lives: the first request that announced a nonce in a vault is addressed by
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
export const transferQuery = (transfer: string | null): string =>
  transfer === null ? '' : `?transfer=${encodeURIComponent(transfer)}`;

/** The Blink (Solana Action) URL of a request: `{PUBLIC_BASE_URL}/api/actions/{vault}/{nonce}[?transfer=…]`. */
export function buildBlinkUrl(publicBaseUrl: string, address: OverrideAddress, action = ''): string {
  return `${publicBaseUrl}/api/actions/${address.vault}/${address.nonce}${action}${transferQuery(address.transfer)}`;
}

/** The approval page a person opens from e-mail or chat: `{PUBLIC_BASE_URL}/overrides/{vault}/{nonce}[?transfer=…]`. */
export function buildApprovalUrl(publicBaseUrl: string, address: OverrideAddress): string {
  return `${publicBaseUrl}/overrides/${address.vault}/${address.nonce}${transferQuery(address.transfer)}`;
}

/** A pending override stays `pending` once expiresAt is reached, but is reported expired and cannot be approved. */
export function isOverrideExpired(status: OverrideStatus, expiresAt: Date | string, now: Date): boolean {
  return status === 'pending' && new Date(expiresAt).getTime() <= now.getTime();
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
}

export interface OverrideResource {
  id: string;
  vaultId: string;
  vault: string;
  nonce: string;
  /** The blocked transaction this request asks to let through (null: created on chain without one). */
  transferSignature: string | null;
  /** The nonce of its on-chain PendingOverride, once created (may differ from the announced nonce). */
  chainNonce: string | null;
  destination: string;
  amount: string;
  blockReason: string | null;
  status: OverrideStatus;
  expiresAt: string;
  createdAt: string;
  expired: boolean;
  blinkUrl: string;
  approvalUrl: string;
}

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
    expired: isOverrideExpired(record.status, record.expiresAt, context.now),
    blinkUrl: buildBlinkUrl(context.publicBaseUrl, address),
    approvalUrl: buildApprovalUrl(context.publicBaseUrl, address),
  };
}

/** A cached resource with `expired` recomputed for now (expiry passes while the entry is cached). */
export function withCurrentExpiry(resource: OverrideResource, now: Date): OverrideResource {
  const expired = isOverrideExpired(resource.status, resource.expiresAt, now);
  return expired === resource.expired ? resource : { ...resource, expired };
}
