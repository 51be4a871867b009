import type { Address } from '@solana/kit';
import type { Lamports } from './scenarios.js';
import type { LedgerState } from './state.js';

/** Account overrides: a test sets a vault's state directly, as solana-test-validator's `--account` does. */

/** Fields setVaultState may rewrite; lastReset in unix seconds, balance = the deposit address's lamports. */
export type VaultStatePatch = {
  dailyLimit?: Lamports;
  spentToday?: Lamports;
  lastReset?: Lamports;
  /** Replaces the whitelist (empty: any destination). */
  whitelist?: readonly Address[];
  paused?: boolean;
  feeBasisPoints?: number;
  agentSigner?: Address;
  balance?: Lamports;
};

/**
 * Places bytes owned by the program at an address as they are (a vault of an earlier layout, say); the
 * change lands in a new slot and subscribers hear of it.
 */
export function setRawAccount(
  state: LedgerState,
  address: Address,
  data: Uint8Array,
  lamports?: Lamports,
): void {
  state.programAccounts.set(address, { kind: 'raw', data: new Uint8Array(data) });
  if (lamports !== undefined) state.lamports.set(address, BigInt(lamports));
  state.touchAccounts([address]);
}

/** Rewrites a vault's account fields and its balance; the change lands in a new slot and subscribers hear of it. */
export function setVaultState(state: LedgerState, vault: Address, patch: VaultStatePatch): void {
  const entry = state.getVault(vault);
  if (entry === undefined) throw new Error(`fake validator: unknown vault ${vault}`);
  const { config } = entry;
  const lamports = (value: Lamports | undefined, current: bigint) =>
    value === undefined ? current : BigInt(value);
  config.dailyLimit = lamports(patch.dailyLimit, config.dailyLimit);
  config.spentToday = lamports(patch.spentToday, config.spentToday);
  config.lastReset = lamports(patch.lastReset, config.lastReset);
  config.paused = patch.paused ?? config.paused;
  config.feeBasisPoints = patch.feeBasisPoints ?? config.feeBasisPoints;
  config.agentSigner = patch.agentSigner ?? config.agentSigner;
  if (patch.whitelist !== undefined) {
    config.whitelist = [...patch.whitelist];
    config.whitelistCount = config.whitelist.length;
  }
  if (patch.balance !== undefined) state.lamports.set(entry.depositAddress, BigInt(patch.balance));
  state.touchAccounts([vault, entry.depositAddress]);
}
