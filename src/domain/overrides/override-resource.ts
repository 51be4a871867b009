// Override row → API object; webhooks (override.*) and Blinks reuse these.
import type { OverrideStatus } from '../../storage/schema/overrides.js';

/** The Blink (Solana Action) address of an override: `{PUBLIC_BASE_URL}/api/actions/{vault}/{nonce}`. */
export function buildBlinkUrl(publicBaseUrl: string, vaultAddress: string, nonce: bigint | string): string {
  return `${publicBaseUrl}/api/actions/${vaultAddress}/${nonce}`;
}

/** The approval page a person opens from e-mail or chat: `{PUBLIC_BASE_URL}/overrides/{vault}/{nonce}`. */
export function buildApprovalUrl(
  publicBaseUrl: string,
  vaultAddress: string,
  nonce: bigint | string,
): string {
  return `${publicBaseUrl}/overrides/${vaultAddress}/${nonce}`;
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
  return {
    id: record.id,
    vaultId: record.vaultId,
    vault: record.vaultAddress,
    nonce: record.nonce.toString(),
    destination: record.destination,
    amount: record.amount.toString(),
    blockReason: record.reason,
    status: record.status,
    expiresAt: record.expiresAt.toISOString(),
    createdAt: record.createdAt.toISOString(),
    expired: isOverrideExpired(record.status, record.expiresAt, context.now),
    blinkUrl: buildBlinkUrl(context.publicBaseUrl, record.vaultAddress, record.nonce),
    approvalUrl: buildApprovalUrl(context.publicBaseUrl, record.vaultAddress, record.nonce),
  };
}

/** A cached resource with `expired` recomputed for now (expiry passes while the entry is cached). */
export function withCurrentExpiry(resource: OverrideResource, now: Date): OverrideResource {
  const expired = isOverrideExpired(resource.status, resource.expiresAt, now);
  return expired === resource.expired ? resource : { ...resource, expired };
}
