// What ingestion applies, in domain terms: the chain layer reads and decodes, the domain projects.

/** Decoded fields of each vault program event (addresses as base58, u64/i64 as bigint). */
export interface ChainEventDataMap {
  VaultCreated: { vault: string; authority: string; tier: string; dailyLimit: bigint };
  VaultInitialized: { vault: string; authority: string; dailyLimit: bigint; timestamp: bigint };
  TransactionExecuted: {
    vault: string;
    amount: bigint;
    destination: string;
    feeCollected: bigint;
    newBalance: bigint;
    spentToday: bigint;
  };
  TransactionBlocked: {
    vault: string;
    reason: string;
    amount: bigint;
    destination: string;
    overrideNonce: bigint | null;
  };
  OverrideCreated: { vault: string; nonce: bigint; amount: bigint; destination: string; expiresAt: bigint };
  OverrideApproved: { vault: string; nonce: bigint; timestamp: bigint };
  PolicyUpdated: { vault: string; dailyLimit: bigint; whitelistSize: number };
  VaultPaused: { vault: string };
  VaultResumed: { vault: string };
  AgentSignerUpdated: { vault: string; oldSigner: string; newSigner: string; timestamp: bigint };
  WhitelistUpdated: { vault: string; address: string; added: boolean; timestamp: bigint };
  FeeTreasuryInitialized: { treasury: string; authority: string; timestamp: bigint };
  FeesWithdrawn: {
    treasury: string;
    amount: bigint;
    recipient: string;
    remainingBalance: bigint;
    timestamp: bigint;
  };
}

export type ChainEventName = keyof ChainEventDataMap;

export type KnownChainEvent = {
  [K in ChainEventName]: { name: K; data: ChainEventDataMap[K] };
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

/** VaultTier index order of the program (stored as a smallint). */
export const VAULT_TIER_NAMES = ['personal', 'team', 'enterprise'] as const;

/** Override lifetime the program sets on create_override (expires_at = now + 1 h). */
export const OVERRIDE_TTL_SECONDS = 3600;
