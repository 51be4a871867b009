// One vault held live (live-vault-accounts.ts): its two account subscriptions, the seed read made once
// both are acknowledged, and what it holds, each value with the slot it is of.
import type { Address } from '@solana/kit';
import type { Logger } from 'pino';
import type { VaultAccountState, VaultChainState } from '../domain/budget/vault-chain-state.js';
import { backoffDelay } from '../lib/backoff.js';
import { warnUndecodable } from './accounts.js';
import type { SolanaRpc, SolanaRpcSubscriptions } from './rpc.js';
import type { RpcEndpoint } from './rpc-endpoints.js';
import {
  balanceOf,
  decodeVaultAccount,
  type EncodedAccount,
  readVaultStateOnce,
} from './vault-state-reader.js';

export type Slotted<T> = { slot: bigint; value: T };
export type Connection = {
  readonly endpoint: RpcEndpoint;
  readonly signal: AbortSignal;
  /** The connection's own client: the vault's subscriptions ride on its WebSocket. */
  readonly subscriptions: SolanaRpcSubscriptions;
};
export const CONFIRMED_BASE64 = { commitment: 'confirmed', encoding: 'base64' } as const;
const RETRY = { baseMs: 1_000, capMs: 60_000 };

export interface Entry {
  readonly vault: Address;
  readonly deposit: Address;
  lastUsed: number;
  account: Slotted<VaultAccountState> | undefined;
  balance: Slotted<bigint> | undefined;
  /** Subscribed and seeded on the current connection: reads answer from memory. */
  live: boolean;
  /** The current subscription attempt (null when there is none). */
  subscription: AbortController | null;
  /** Settles when the current attempt is live (true) or has failed (false). */
  ready: Promise<boolean> | null;
  failures: number;
  /** No new attempt before this time after one failed. */
  retryAt: number;
}

/** What the vaults share: the connection, the Clock and the means to read. */
export interface LiveContext {
  readonly rpc: SolanaRpc;
  readonly programId: Address;
  readonly logger: Logger;
  readonly now: () => number;
  connection: Connection | null;
  clock: Slotted<bigint> | undefined;
}

/** Same-slot values replace: a notification is never older than a read of the same slot. */
export const isNewer = <T>(held: Slotted<T> | undefined, slot: bigint) =>
  held === undefined || slot >= held.slot;

export function createEntry(vault: Address, deposit: Address, at: number): Entry {
  return {
    vault,
    deposit,
    lastUsed: at,
    account: undefined,
    balance: undefined,
    live: false,
    subscription: null,
    ready: null,
    failures: 0,
    retryAt: 0,
  };
}

/** The vault as of the newest slot among its account, its balance and the Clock. */
export function snapshotOf(entry: Entry, clock: Slotted<bigint>): VaultChainState {
  const account = entry.account as Slotted<VaultAccountState>;
  const balance = entry.balance as Slotted<bigint>;
  let slot = clock.slot;
  if (account.slot > slot) slot = account.slot;
  if (balance.slot > slot) slot = balance.slot;
  return { slot, clockTime: clock.value, vault: account.value, balance: balance.value };
}

/** Ends a vault's subscriptions and forgets what it held (a later read subscribes again). */
export function releaseEntry(entry: Entry): void {
  entry.subscription?.abort();
  entry.subscription = null;
  entry.ready = null;
  entry.live = false;
  entry.account = undefined;
  entry.balance = undefined;
}

/** Subscribes the vault's two accounts on `conn`, then seeds them with one read; settles `ready` either way. */
export function subscribeEntry(ctx: LiveContext, entry: Entry, conn: Connection): void {
  const attempt = new AbortController();
  const signal = AbortSignal.any([conn.signal, attempt.signal]);
  entry.subscription = attempt;
  const current = () => ctx.connection === conn && entry.subscription === attempt && !signal.aborted;
  const follow = async (address: Address, apply: (slot: bigint, value: EncodedAccount) => void) => {
    const stream = await conn.subscriptions
      .accountNotifications(address, CONFIRMED_BASE64)
      .subscribe({ abortSignal: signal });
    // Iterating at once: kit drops notifications that arrive before an iterator asks for them.
    const ended = (async (): Promise<unknown> => {
      try {
        for await (const n of stream) if (current()) apply(n.context.slot, n.value as EncodedAccount);
        return new Error('account subscription ended');
      } catch (error) {
        return error;
      }
    })();
    return { ended };
  };
  entry.ready = (async () => {
    try {
      const streams = await Promise.all([
        follow(entry.vault, (slot, value) => {
          if (isNewer(entry.account, slot))
            entry.account = {
              slot,
              value: decodeVaultAccount(value, ctx.programId, (error, size) =>
                warnUndecodable(ctx.logger, entry.vault, size, error),
              ),
            };
        }),
        follow(entry.deposit, (slot, value) => {
          if (isNewer(entry.balance, slot)) entry.balance = { slot, value: balanceOf(value) };
        }),
      ]);
      // Read after both acknowledgements: from here on nothing is missed.
      const seed = await readVaultStateOnce(
        ctx.rpc,
        ctx.programId,
        entry.vault,
        entry.deposit,
        signal,
        ctx.logger,
      );
      if (!current()) return false;
      if (entry.account === undefined || seed.slot > entry.account.slot)
        entry.account = { slot: seed.slot, value: seed.vault };
      if (entry.balance === undefined || seed.slot > entry.balance.slot)
        entry.balance = { slot: seed.slot, value: seed.balance };
      if (ctx.clock === undefined || seed.slot > ctx.clock.slot)
        ctx.clock = { slot: seed.slot, value: seed.clockTime };
      entry.live = true;
      entry.failures = 0;
      void Promise.race(streams.map((s) => s.ended)).then((reason) => dropEntry(ctx, entry, attempt, reason));
      return true;
    } catch (error) {
      dropEntry(ctx, entry, attempt, error);
      return false;
    }
  })();
}

/** A vault's subscription failed or ended: fresh reads until a later read subscribes again (backing off). */
function dropEntry(ctx: LiveContext, entry: Entry, attempt: AbortController, error: unknown): void {
  if (entry.subscription !== attempt || attempt.signal.aborted || ctx.connection === null) return;
  releaseEntry(entry);
  entry.failures += 1;
  entry.retryAt = ctx.now() + backoffDelay(entry.failures - 1, RETRY);
  ctx.logger.warn(
    { vault: entry.vault, err: error instanceof Error ? error.message : String(error) },
    'live vault accounts: a subscription dropped; reading fresh until it is back',
  );
}
