// How chain state lands on a vault row: creation, the account snapshot, and override matching.
import { randomUUID } from 'node:crypto';
import { VAULT_TIERS } from '../vaults/vault-resource.js';
import { type BatchState, emptyStats, type OverrideState, type VaultState } from './batch-state.js';
import type { VaultAccountRead } from './types.js';

export const tierIndex = (tier: string) => Math.max(0, (VAULT_TIERS as readonly string[]).indexOf(tier));
export const fromUnix = (seconds: bigint) => new Date(Number(seconds) * 1000);

export function createVault(
  address: string,
  authority: string,
  read: VaultAccountRead | undefined,
  created: { dailyLimit: bigint; tier?: string } | undefined,
  slot: number,
  at: Date,
): VaultState {
  return {
    row: {
      id: randomUUID(),
      address,
      authority,
      agentSigner: '',
      depositAddress: read?.depositAddress ?? '',
      dailyLimit: created?.dailyLimit ?? 0n,
      spentToday: 0n,
      lastReset: null,
      name: '',
      nameOverridden: false,
      tier: tierIndex(created?.tier ?? 'personal'),
      feeBasisPoints: 0,
      paused: false,
      whitelist: [],
      whitelistCount: 0,
      vaultNonce: null,
      overrideNonce: null,
      createdSlot: slot,
      syncedSlot: 0,
      transactionCount: 0,
      executedCount: 0,
      blockedCount: 0,
      totalVolume: 0n,
      createdAt: at,
      updatedAt: at,
    },
    dirty: true,
    accountApplied: false,
    stats: emptyStats(),
  };
}

/** The account is "now", not "at that slot": it applies only when at least as new as the stored state. */
export function applyAccount(v: VaultState, read: VaultAccountRead | undefined): void {
  const account = read?.state;
  if (v.accountApplied || read === undefined || account == null || read.slot < v.row.syncedSlot) return;
  const row = v.row;
  row.authority = account.authority;
  row.agentSigner = account.agentSigner;
  row.dailyLimit = account.dailyLimit;
  row.spentToday = account.spentToday;
  row.lastReset = account.lastReset > 0n ? fromUnix(account.lastReset) : null;
  row.whitelist = [...account.whitelist];
  row.whitelistCount = account.whitelistCount;
  row.tier = tierIndex(account.tier);
  row.feeBasisPoints = account.feeBasisPoints;
  if (!row.nameOverridden) row.name = account.name;
  row.paused = account.paused;
  row.vaultNonce = account.vaultNonce;
  row.overrideNonce = account.overrideNonce;
  row.syncedSlot = read.slot;
  v.accountApplied = true;
  v.dirty = true;
}

/** The approved override an ExecuteApprovedOverride transfer settles: same vault, destination, amount. */
export function findApprovedOverride(
  state: BatchState,
  vault: string,
  destination: string,
  amount: bigint,
  approvedHere: ReadonlySet<string>,
): OverrideState | undefined {
  const candidates = [...state.overrides.values()].filter(
    (o) =>
      o.vaultAddress === vault &&
      o.row.status === 'approved' &&
      o.row.destination === destination &&
      o.row.amount === amount,
  );
  const sameSignature = candidates.find((o) => approvedHere.has(o.row.id));
  if (sameSignature !== undefined) return sameSignature;
  const time = (o: OverrideState) => (o.row.approvedAt ?? o.row.createdAt).getTime();
  return candidates.sort((a, b) => time(a) - time(b))[0];
}

const overridesOf = (state: BatchState, vault: string) =>
  [...state.overrides.values()].filter((o) => o.vaultAddress === vault);

/** The request addressed by (vault, nonce) alone: the first that announced the nonce. */
export function findFirstRequest(state: BatchState, vault: string, nonce: bigint): OverrideState | undefined {
  return overridesOf(state, vault).find((o) => o.row.nonce === nonce && o.row.addressSignature === null);
}

/** The override linked to the on-chain PendingOverride of this nonce. */
export function findByChainNonce(state: BatchState, vault: string, nonce: bigint): OverrideState | undefined {
  return overridesOf(state, vault).find((o) => o.row.chainNonce === nonce);
}

/**
 * The request an OverrideCreated was made for: the earliest of the vault's requests that is still
 * pending, not on chain yet, not expired at `at`, with the same destination and amount.
 */
export function findUnresolvedRequest(
  state: BatchState,
  vault: string,
  destination: string,
  amount: bigint,
  at: Date,
): OverrideState | undefined {
  const candidates = overridesOf(state, vault).filter(
    (o) =>
      o.row.status === 'pending' &&
      o.row.chainNonce === null &&
      o.row.transferSignature !== null &&
      o.row.expiresAt.getTime() > at.getTime() &&
      o.row.destination === destination &&
      o.row.amount === amount,
  );
  const order = (a: OverrideState, b: OverrideState) =>
    a.row.createdAt.getTime() - b.row.createdAt.getTime() || a.order - b.order;
  return candidates.sort(order)[0];
}
