// The transaction resource: its schemas (the API's and the transaction.* webhooks'), types, and the
// row → resource mapping.

import { type Static, Type } from 'typebox';
import type { SolanaCluster } from '../../config.js';
import { Address, Lamports, NullableString, StringEnum, Timestamp } from '../../lib/json-schema.js';
import {
  COMMITMENTS,
  type Commitment,
  TRANSACTION_STATUSES,
  type TransactionStatus,
} from '../../storage/schema/transactions.js';
import { buildBlinkUrl } from '../overrides/override-resource.js';

/** A transaction row. Amounts may be decimal text and the time ISO text (as hot reads select them). */
export interface TransactionRecord {
  id: string;
  signature: string | null;
  vaultAddress: string;
  destination: string;
  amount: bigint | string;
  feeCollected: bigint | string | null;
  status: TransactionStatus;
  blockReason: string | null;
  timestamp: Date | string;
  /** `confirmed` until the finality reconciler sees its transaction finalized. */
  commitment: Commitment;
  /** The nonce of the override a blocked attempt asked for (null when it asked for none). */
  overrideNonce: bigint | string | null;
  /** The signature in its override's address, when the override is not the first of its nonce. */
  overrideTransfer: string | null;
}

/** Why the program blocked a transfer, by its on-chain index. */
export const BLOCK_REASONS = ['not_whitelisted', 'exceeded_daily_limit', 'insufficient_funds'] as const;
export type BlockReason = (typeof BLOCK_REASONS)[number];

const transactionFields = {
  id: Type.String({ format: 'uuid' }),
  signature: NullableString({
    description:
      'executed: the signature of the transaction that made the transfer; blocked and pending: null in lists ' +
      "(open the item with GET /api/transactions/{id} to read a blocked attempt's signature)",
  }),
  vault: Address('the vault address'),
  destination: Address(),
  amount: Lamports(),
  status: StringEnum(TRANSACTION_STATUSES),
  blockReason: NullableString({
    description: 'not_whitelisted, exceeded_daily_limit or insufficient_funds; null unless blocked',
  }),
  timestamp: Timestamp('block time'),
  commitment: StringEnum(COMMITMENTS, {
    description:
      'confirmed: applied as the cluster confirmed it (a fork may still drop it); finalized: rooted, final',
  }),
  feeCollected: Type.Optional(Lamports('executed transactions only')),
  blinkUrl: Type.Optional(
    Type.String({ format: 'uri', description: 'blocked transactions with an override only: its Blink' }),
  ),
};

/** A list item, and the object of the `transaction.*` webhooks. */
export const TransactionResource = Type.Object(transactionFields, { title: 'Transaction' });
export type TransactionResource = Static<typeof TransactionResource>;

/**
 * The detail (GET /api/transactions/:key, by signature or by a list item's id): the list item plus the
 * signature of the Solana transaction it came from and its explorerUrl. docs/API.md, Formats.
 */
export const TransactionDetail = Type.Object(
  {
    ...transactionFields,
    signature: NullableString({
      description:
        "executed: the transaction that made the transfer; blocked: the agent's transaction that the " +
        'program failed when it blocked the transfer; pending: null (nothing sent yet: open it by id)',
    }),
    explorerUrl: Type.Optional(
      Type.String({
        format: 'uri',
        description: 'the Solana Explorer page of `signature`; left out while pending',
      }),
    ),
  },
  { title: 'TransactionDetail' },
);
export type TransactionDetail = Static<typeof TransactionDetail>;

export interface TransactionLinks {
  readonly publicBaseUrl: string;
  readonly cluster: SolanaCluster;
}

/** The Solana Explorer page of a signature; mainnet-beta takes no cluster, localnet is `custom`. */
function buildExplorerUrl(signature: string, cluster: SolanaCluster): string {
  const base = `https://explorer.solana.com/tx/${signature}`;
  if (cluster === 'mainnet-beta') return base;
  return `${base}?cluster=${cluster === 'localnet' ? 'custom' : cluster}`;
}

/**
 * A list item (and the `transaction.*` webhook object): signature null for blocked and pending items
 * (docs/API.md, Formats). Fields that do not apply are left out, not null; blockReason is null unless blocked.
 */
export function toTransactionResource(
  record: TransactionRecord,
  links: TransactionLinks,
): TransactionResource {
  const blocked = record.status === 'blocked';
  const resource: TransactionResource = {
    id: record.id,
    signature: record.status === 'executed' ? record.signature : null,
    vault: record.vaultAddress,
    destination: record.destination,
    amount: String(record.amount),
    status: record.status,
    blockReason: blocked ? record.blockReason : null,
    timestamp: typeof record.timestamp === 'string' ? record.timestamp : record.timestamp.toISOString(),
    commitment: record.commitment,
  };
  if (record.status === 'executed') resource.feeCollected = String(record.feeCollected ?? 0n);
  if (blocked && record.overrideNonce !== null) {
    resource.blinkUrl = buildBlinkUrl(links.publicBaseUrl, {
      vault: record.vaultAddress,
      nonce: record.overrideNonce,
      transfer: record.overrideTransfer,
    });
  }
  return resource;
}

/** The detail: the list item plus its transaction's signature (null while pending) and explorerUrl. */
export function toTransactionDetail(record: TransactionRecord, links: TransactionLinks): TransactionDetail {
  const detail: TransactionDetail = { ...toTransactionResource(record, links), signature: record.signature };
  if (record.signature !== null) detail.explorerUrl = buildExplorerUrl(record.signature, links.cluster);
  return detail;
}
