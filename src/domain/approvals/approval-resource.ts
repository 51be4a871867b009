// The approval resource: the owner's decision on the override a blocked transfer asked for, named by
// that transfer's signature (what an agent holds after a block), as the agents' routes and tools show it.
import { type Static, Type } from 'typebox';
import { NullableString } from '../../lib/json-schema.js';
import type { OverrideResource } from '../overrides/override-resource.js';

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'executed', 'expired', 'none'] as const;
export type ApprovalStatus = (typeof APPROVAL_STATUSES)[number];

export const Approval = Type.Object(
  {
    status: Type.Unsafe<ApprovalStatus>({
      type: 'string',
      enum: [...APPROVAL_STATUSES],
      description:
        "the owner's decision on the transfer's override. pending: the owner has not decided; approved / executed: the owner let it through (executed: the transfer was sent); rejected; expired: pending past expiresAt, it can no longer be approved; none: no override for this transfer (not blocked, blocked for funds, or not seen yet)",
    }),
    nonce: NullableString({ description: "the nonce of the transfer's override; null when status is none" }),
    amount: NullableString({
      description: 'lamports, decimal integer string; null when the transfer is unknown',
    }),
    destination: NullableString({ description: 'base58 address; null when the transfer is unknown' }),
    expiresAt: NullableString({
      format: 'date-time',
      description: 'when the override can no longer be approved',
    }),
    blinkUrl: NullableString({
      format: 'uri',
      description: "the override's Blink (the Solana Action URL a wallet opens): share it with the owner",
    }),
    approvalUrl: NullableString({
      format: 'uri',
      description: 'the approval page for a plain browser: share it with the owner',
    }),
  },
  { title: 'Approval' },
);
export type Approval = Static<typeof Approval>;

/** The transfer a signature names, as far as the service knows it. */
export interface TransferFacts {
  destination: string;
  amount: string;
}

/** The approval of an override; of a transfer without one (`none`); of a transfer not seen yet (`none`). */
export function toApproval(override: OverrideResource | null, transfer: TransferFacts | null): Approval {
  if (override === null) {
    return {
      status: 'none',
      nonce: null,
      amount: transfer?.amount ?? null,
      destination: transfer?.destination ?? null,
      expiresAt: null,
      blinkUrl: null,
      approvalUrl: null,
    };
  }
  return {
    status: override.expired ? 'expired' : override.status,
    nonce: override.nonce,
    amount: override.amount,
    destination: override.destination,
    expiresAt: override.expiresAt,
    blinkUrl: override.blinkUrl,
    approvalUrl: override.approvalUrl,
  };
}

/**
 * Settled: the owner decided, it expired, or there is no request to wait for (the transfer asked for
 * none, or the service has not seen it: a wait on an unknown signature ends at once).
 */
export const isSettled = (approval: Approval): boolean => approval.status !== 'pending';
