// What ingestion applies, in domain terms: the chain layer reads and decodes, the domain projects.
import type { BlockReason } from '../transactions/transaction-resource.js';
import type { VaultTier } from '../vaults/vault-resource.js';

/**
 * Decoded fields of each vault program event (u64/i64 as bigint, enums as API strings). The chain's
 * codecs produce it with kit's `Address` for TAddress; ingestion reads addresses as strings.
 */
export interface ChainEventDataMap<TAddress extends string = string> {
  VaultCreated: { vault: TAddress; authority: TAddress; tier: VaultTier; dailyLimit: bigint };
  VaultInitialized: { vault: TAddress; authority: TAddress; dailyLimit: bigint; timestamp: bigint };
  TransactionExecuted: {
    vault: TAddress;
    amount: bigint;
    destination: TAddress;
    feeCollected: bigint;
    newBalance: bigint;
    spentToday: bigint;
  };
  TransactionBlocked: {
    vault: TAddress;
    reason: BlockReason;
    amount: bigint;
    destination: TAddress;
    overrideNonce: bigint | null;
  };
  OverrideCreated: {
    vault: TAddress;
    nonce: bigint;
    amount: bigint;
    destination: TAddress;
    expiresAt: bigint;
  };
  OverrideApproved: { vault: TAddress; nonce: bigint; timestamp: bigint };
  PolicyUpdated: { vault: TAddress; dailyLimit: bigint; whitelistSize: number };
  VaultPaused: { vault: TAddress };
  VaultResumed: { vault: TAddress };
  AgentSignerUpdated: { vault: TAddress; oldSigner: TAddress; newSigner: TAddress; timestamp: bigint };
  WhitelistUpdated: { vault: TAddress; address: TAddress; added: boolean; timestamp: bigint };
  FeeTreasuryInitialized: { treasury: TAddress; authority: TAddress; timestamp: bigint };
  FeesWithdrawn: {
    treasury: TAddress;
    amount: bigint;
    recipient: TAddress;
    remainingBalance: bigint;
    timestamp: bigint;
  };
}

export type ChainEventName = keyof ChainEventDataMap;

export type KnownChainEvent<TAddress extends string = string> = {
  [K in ChainEventName]: { name: K; data: ChainEventDataMap<TAddress>[K] };
}[ChainEventName];
/** A `Program data:` payload the codecs could not decode: stored raw, never projected. */
export type UnknownChainEvent = { name: 'Unknown'; discriminator: string; raw: string; error?: string };

/** One event the vault program itself emitted, with its position and emitting instruction. */
export type ChainEvent = { index: number; instruction: string | null } & (
  | KnownChainEvent
  | UnknownChainEvent
);

/** A program transaction as read with getTransaction and decoded. */
export interface ChainTransaction {
  signature: string;
  slot: number;
  /** Block time; null only when the node does not know it. */
  blockTime: Date | null;
  /** `meta.err` was set: only TransactionBlocked counts. */
  failed: boolean;
  /** A `Log truncated` line hid the events after it. */
  truncated: boolean;
  events: ChainEvent[];
}

/** The VaultConfig account fields ingestion stores. */
export interface VaultAccountState {
  authority: string;
  agentSigner: string;
  dailyLimit: bigint;
  spentToday: bigint;
  /** Unix seconds. */
  lastReset: bigint;
  whitelist: readonly string[];
  whitelistCount: number;
  tier: string;
  feeBasisPoints: number;
  name: string;
  paused: boolean;
  overrideNonce: bigint;
  vaultNonce: bigint;
}

/** A VaultConfig read: the slot the node answered at, and the state (null: no such program account). */
export interface VaultAccountRead {
  slot: number;
  state: VaultAccountState | null;
  /** The vault-authority PDA that holds the vault's SOL. */
  depositAddress: string;
}

/** The PendingOverride account fields used when an override event names an override we never saw. */
export interface OverrideAccountState {
  amount: bigint;
  destination: string;
  expiresAt: bigint;
  executed: boolean;
}

/** Network reads done before the database transaction (never inside it). */
export interface ChainStateReader {
  /** VaultConfig accounts read at a slot no older than minSlot (owner and discriminator checked). */
  readVaults(addresses: readonly string[], minSlot: number): Promise<Map<string, VaultAccountRead>>;
  /** PendingOverride accounts by `overrideKey(vault, nonce)`; missing ones are absent from the map. */
  readOverrides(
    keys: readonly { vault: string; nonce: bigint }[],
  ): Promise<Map<string, OverrideAccountState>>;
}

export const overrideKey = (vault: string, nonce: bigint) => `${vault}:${nonce}`;
