// Transaction row → API object; webhooks (transaction.*) reuse it.
import type { SolanaCluster } from '../../config.js';
import type { TransactionStatus } from '../../storage/schema/transactions.js';
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
  /** The nonce of the override a blocked attempt asked for (null when it asked for none). */
  overrideNonce: bigint | string | null;
  /** The signature in its override's address, when the override is not the first of its nonce. */
  overrideTransfer: string | null;
}

export interface TransactionResource {
  id: string;
  signature: string | null;
  vault: string;
  destination: string;
  amount: string;
  status: TransactionStatus;
  blockReason: string | null;
  timestamp: string;
  /** Executed transactions only. */
  feeCollected?: string;
  /** Blocked transactions that have an override only. */
  blinkUrl?: string;
  /** Detail only. */
  explorerUrl?: string;
}

export interface TransactionLinks {
  readonly publicBaseUrl: string;
  readonly cluster: SolanaCluster;
}

/** The Solana Explorer page of a signature; mainnet-beta takes no cluster, localnet is `custom`. */
export function buildExplorerUrl(signature: string, cluster: SolanaCluster): string {
  const base = `https://explorer.solana.com/tx/${signature}`;
  if (cluster === 'mainnet-beta') return base;
  return `${base}?cluster=${cluster === 'localnet' ? 'custom' : cluster}`;
}

/**
 * A list item (and the `transaction.*` webhook object): signature null for blocked and pending items
 * (docs/BEHAVIOUR.md, Formats). Fields that do not apply are left out, not null; blockReason is null unless blocked.
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

export interface TransactionDetail extends TransactionResource {
  signature: string;
  explorerUrl: string;
}

/** The detail (GET /api/transactions/:signature): the list item plus its signature and explorerUrl. */
export function toTransactionDetail(
  record: TransactionRecord & { signature: string },
  links: TransactionLinks,
): TransactionDetail {
  return {
    ...toTransactionResource(record, links),
    signature: record.signature,
    explorerUrl: buildExplorerUrl(record.signature, links.cluster),
  };
}
