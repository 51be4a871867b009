// What the budget and the pre-flight check need from the chain (a port: src/chain/ implements it): a
// vault's account, its deposit address's balance and the cluster's clock, all as of one slot.
import type { VaultPolicy } from '../policy/vault-policy.js';

/** The account at the vault address: a VaultConfig of the program, nothing, or something else. */
export type VaultAccountState =
  | { readonly status: 'found'; readonly policy: VaultPolicy }
  | { readonly status: 'missing' }
  | { readonly status: 'invalid' };

export interface VaultChainState {
  /** The slot the three reads are as of. */
  readonly slot: bigint;
  /** The Clock sysvar's unix_timestamp at that slot: the time the program judges windows by. */
  readonly clockTime: bigint;
  readonly vault: VaultAccountState;
  /** Lamports at the deposit address (0 when it holds none). */
  readonly balance: bigint;
}

export interface VaultChainStateReader {
  /**
   * The vault's state at a slot no older than a fresh read would give; throws when the RPC cannot
   * answer within timeoutMs (unreachable, 5xx, a Clock it cannot serve).
   */
  read(vault: string, depositAddress: string, timeoutMs: number): Promise<VaultChainState>;
}
