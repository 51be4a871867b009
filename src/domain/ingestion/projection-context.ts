// The per-transaction toolkit the event handlers use: find or create the vault, add transaction and
// override rows, queue webhooks, mark metric days. Everything lands in the batch state or output.
import { randomUUID } from 'node:crypto';
import type { SolanaCluster } from '../../config.js';
import type { TransactionStatus } from '../../storage/schema/index.js';
import type { OutboxEvent } from '../webhooks/outbox.js';
import type { BatchState, OverrideState, TransactionState, VaultState } from './batch-state.js';
import {
  buildApprovalUrl,
  buildBlinkUrl,
  buildOverridePayload,
  buildVaultPayload,
  type OverrideLinks,
} from './payloads.js';
import {
  type ChainTransaction,
  type OverrideAccountState,
  overrideKey,
  type VaultAccountRead,
} from './types.js';
import {
  applyAccount,
  createVault,
  findByChainNonce,
  findFirstRequest,
  fromUnix,
} from './vault-projection.js';

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
}

export interface NewOverride {
  /** The nonce it is addressed by: the announced one, or the on-chain one for an override of its own. */
  nonce: bigint;
  transferSignature: string | null;
  chainNonce: bigint | null;
  amount: bigint;
  destination: string;
  expiresAt: Date;
  reason: string | null;
}

export interface NewTransfer {
  status: TransactionStatus;
  amount: bigint;
  destination: string;
  feeCollected?: bigint;
  blockReason?: string;
  overrideId?: string;
}

export type TransactionContext = ReturnType<typeof createTransactionContext>;

const addressOf = (o: OverrideState) => ({
  vault: o.vaultAddress,
  nonce: o.row.nonce,
  transfer: o.row.addressSignature,
});

export function createTransactionContext(
  tx: ChainTransaction,
  input: ProjectionInput,
  out: ProjectionOutput,
) {
  const { state, vaultReads, overrideReads, publicBaseUrl, now } = input;
  const at = tx.blockTime ?? now;
  const warn = (kind: IngestionWarning['kind'], detail: string) =>
    out.warnings.push({ kind, signature: tx.signature, detail });

  const markDay = (vaultId: string, when: Date) => {
    const day = when.toISOString().slice(0, 10);
    out.dirtyDays.set(`${vaultId}|${day}`, { vaultId, day });
  };
  const touch = (v: VaultState) => {
    v.dirty = true;
    if (at > v.row.updatedAt) v.row.updatedAt = at;
    out.touchedVaults.add(v.row.address);
  };

  /** A new request (or override of its own): the nonce's first is addressed by it alone, later ones add a signature. */
  const addOverride = (v: VaultState, fields: NewOverride): OverrideState => {
    const first = findFirstRequest(state, v.row.address, fields.nonce);
    const o: OverrideState = {
      row: {
        id: randomUUID(),
        vaultId: v.row.id,
        nonce: fields.nonce,
        transferSignature: fields.transferSignature,
        addressSignature: first === undefined ? null : (fields.transferSignature ?? tx.signature),
        chainNonce: fields.chainNonce,
        destination: fields.destination,
        amount: fields.amount,
        reason: fields.reason,
        status: 'pending',
        expiresAt: fields.expiresAt,
        approvedAt: null,
        rejectedAt: null,
        executedAt: null,
        createdAt: at,
        updatedAt: now,
      },
      vaultAddress: v.row.address,
      dirty: true,
      order: state.overrides.size,
    };
    state.overrides.set(o.row.id, o);
    out.blinks.push({
      id: randomUUID(),
      overrideId: o.row.id,
      url: buildBlinkUrl(publicBaseUrl, addressOf(o)),
    });
    markDay(v.row.id, at);
    return o;
  };

  return {
    at,
    warn,
    markDay,
    /** Overrides approved earlier in this same signature: a Blink's execute settles these first. */
    approvedHere: new Set<string>(),
    /** An approval request was made for this signature's blocked transfer (the program fails at the first). */
    requestedHere: false,

    enqueue(event: OutboxEvent['event'], v: VaultState, index: number, data: object) {
      out.webhooks.push({
        event,
        vaultId: v.row.id,
        authority: v.row.authority,
        timestamp: at.toISOString(),
        data: data as Record<string, unknown>,
        dedupeKey: `${tx.signature}:${index}:${event}`,
      });
    },

    /** Event-carried vault fields apply only when the event is at least as new as the stored state. */
    applyFields(v: VaultState, change: (row: VaultState['row']) => void) {
      if (tx.slot >= v.row.syncedSlot) {
        change(v.row);
        v.row.syncedSlot = tx.slot;
      }
      touch(v);
    },

    /** The vault an event names: loaded, or created from its account (or from a creation event). */
    getVault(
      address: string,
      created?: { authority: string; dailyLimit: bigint; tier?: string },
    ): VaultState | undefined {
      const read = vaultReads.get(address);
      let v = state.vaults.get(address);
      if (v === undefined) {
        const authority = read?.state?.authority ?? created?.authority;
        if (authority === undefined) {
          warn('vault_unknown', `no VaultConfig account for ${address}`);
          return undefined;
        }
        v = createVault(address, authority, read, created, tx.slot, at);
        state.vaults.set(address, v);
      }
      applyAccount(v, read);
      touch(v);
      return v;
    },

    addTransaction(v: VaultState, index: number | null, fields: NewTransfer): TransactionState {
      const entry: TransactionState = {
        row: {
          id: randomUUID(),
          vaultId: v.row.id,
          signature: fields.status === 'pending' ? null : tx.signature,
          eventIndex: fields.status === 'pending' ? null : index,
          destination: fields.destination,
          amount: fields.amount,
          feeCollected: fields.feeCollected ?? null,
          status: fields.status,
          blockReason: fields.blockReason ?? null,
          overrideId: fields.overrideId ?? null,
          slot: tx.slot,
          timestamp: at,
          createdAt: now,
          updatedAt: now,
        },
        vaultAddress: v.row.address,
        loadedStatus: null,
        dirty: true,
      };
      state.transactions.push(entry);
      v.stats.transactionCount += 1;
      if (fields.status === 'executed') {
        v.stats.executedCount += 1;
        v.stats.totalVolume += fields.amount;
      }
      if (fields.status === 'blocked') v.stats.blockedCount += 1;
      markDay(v.row.id, at);
      return entry;
    },

    addOverride,

    changeOverride(o: OverrideState) {
      o.dirty = true;
      o.row.updatedAt = now;
      markDay(o.row.vaultId, at);
    },

    overrideObject: (o: OverrideState) => buildOverridePayload(o.row, o.vaultAddress, publicBaseUrl, at),

    /** The vault object, with its counters as they stand after this batch's events so far. */
    vaultObject(v: VaultState) {
      const { row, stats } = v;
      return buildVaultPayload({
        ...row,
        transactionCount: row.transactionCount + stats.transactionCount,
        executedCount: row.executedCount + stats.executedCount,
        blockedCount: row.blockedCount + stats.blockedCount,
        totalVolume: row.totalVolume + stats.totalVolume,
      });
    },

    links: { publicBaseUrl, cluster: input.cluster },

    /** Where a person acts on an override: its Blink and its approval page. */
    overrideLinks: (o: OverrideState): OverrideLinks => ({
      blinkUrl: buildBlinkUrl(publicBaseUrl, addressOf(o)),
      approvalUrl: buildApprovalUrl(publicBaseUrl, addressOf(o)),
    }),

    /** The override of an on-chain nonce, or one created from its PendingOverride account when we never saw it. */
    findOrReadOverride(v: VaultState, chainNonce: bigint): OverrideState | undefined {
      const known = findByChainNonce(state, v.row.address, chainNonce);
      if (known !== undefined) return known;
      const account = overrideReads.get(overrideKey(v.row.address, chainNonce));
      if (account === undefined) return undefined;
      return addOverride(v, {
        nonce: chainNonce,
        transferSignature: null,
        chainNonce,
        amount: account.amount,
        destination: account.destination,
        expiresAt: fromUnix(account.expiresAt),
        reason: null,
      });
    },
  };
}
