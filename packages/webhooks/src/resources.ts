// The resources webhook payloads carry, as the API serves them (the client package shares these types).

/** Lamports as a decimal integer string (u64 does not fit a JSON number). */
export type Lamports = string;
/** ISO 8601 UTC with milliseconds. */
export type Timestamp = string;

export type BlockReason = 'not_whitelisted' | 'exceeded_daily_limit' | 'insufficient_funds';
export type TransactionStatus = 'executed' | 'blocked' | 'pending';
export type OverrideStatus = 'pending' | 'approved' | 'rejected' | 'executed';
export type VaultTier = 'personal' | 'team' | 'enterprise';

/** A transaction as lists show it, and the object of `transaction.executed`. */
export interface Transaction {
  id: string;
  /** Null for blocked and pending items in lists. */
  signature: string | null;
  /** The vault address. */
  vault: string;
  destination: string;
  amount: Lamports;
  status: TransactionStatus;
  /** Null unless blocked. */
  blockReason: BlockReason | (string & {}) | null;
  /** Block time. */
  timestamp: Timestamp;
  /** Executed transactions only. */
  feeCollected?: Lamports;
  /** Blocked transactions with an override only: its Blink. */
  blinkUrl?: string;
}

/** An override request (a blocked transfer the owner may approve), and the object of `override.*`. */
export interface Override {
  id: string;
  /** The vault record id. */
  vaultId: string;
  /** The vault address. */
  vault: string;
  /** The override nonce its blocked transfer announced (with transferSignature, it names the request). */
  nonce: string;
  /** The blocked transaction this request lets through; null for an override created on chain without one. */
  transferSignature: string | null;
  /** The nonce of its on-chain PendingOverride once created. */
  chainNonce: string | null;
  destination: string;
  amount: Lamports;
  /** Why the program blocked the transfer that asked for it; null when the owner requested it. */
  blockReason: BlockReason | (string & {}) | null;
  status: OverrideStatus;
  expiresAt: Timestamp;
  createdAt: Timestamp;
  /** Pending and past expiresAt: it can no longer be approved. */
  expired: boolean;
  /** Its Blink (Solana Action) metadata URL. */
  blinkUrl: string;
  /** The approval page for a plain browser. */
  approvalUrl: string;
}

/** A vault in full (GET /api/vaults/:address), and the object of `vault.*`. */
export interface Vault {
  id: string;
  /** The vault address (VaultConfig PDA). */
  address: string;
  /** The vault-authority PDA that holds the SOL. */
  depositAddress: string;
  /** The owner. */
  authority: string;
  /** The agent allowed to spend (empty until the account is read). */
  agentSigner: string;
  dailyLimit: Lamports;
  spentToday: Lamports;
  /** Start of the daily window; null until read. */
  lastReset: Timestamp | null;
  name: string;
  paused: boolean;
  /** Destinations the agent may pay. */
  whitelist: string[];
  whitelistCount: number;
  tier: VaultTier;
  createdAt: Timestamp;
  updatedAt: Timestamp;
  stats: {
    /** Transactions of every status. */
    transactionCount: number;
    /** Sum of executed amounts. */
    totalVolume: Lamports;
    blockedCount: number;
    /** floor(totalVolume / executed count), "0" when none. */
    avgTransactionSize: Lamports;
  };
}
