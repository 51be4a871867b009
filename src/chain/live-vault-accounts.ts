// Live vault accounts: the budget's port (domain/budget/vault-chain-state.ts) answered from memory.
// The accounts of recently read vaults (VaultConfig and deposit address) are kept by accountSubscribe at
// `confirmed` (live-vault-entry.ts), the Clock sysvar by one shared subscription (it changes every slot).
// A vault answers from memory only once both its subscriptions are acknowledged and a read made after
// that (the seed) has landed; notifications replace what is held when their slot is not older. Until
// then, and whenever a subscription drops, reads are fresh (one getMultipleAccounts). The connection
// reconnects and fails over like the log feed (subscription.ts); on each (re)connection every vault is
// subscribed and seeded again. The Clock is also the connection's heartbeat: a silence of more than
// HEARTBEAT_MS means notifications may have been missed, so everything held is dropped and the connection
// replaced, whether the silence is noticed by a read or by the next notification. Memory is bounded: at
// most maxVaults vaults (the least recently read let go) and idle expiry.
import type { Address } from '@solana/kit';
import type { Logger } from 'pino';
import type { VaultChainState, VaultChainStateReader } from '../domain/budget/vault-chain-state.js';
import { CLOCK_SYSVAR_ADDRESS } from './clock-sysvar.js';
import {
  CONFIRMED_BASE64,
  createEntry,
  type Entry,
  isNewer,
  type LiveContext,
  releaseEntry,
  snapshotOf,
  subscribeEntry,
} from './live-vault-entry.js';
import type { SolanaRpc, SolanaRpcSubscriptions } from './rpc.js';
import type { RpcEndpoint, RpcEndpoints } from './rpc-endpoints.js';
import { runSubscription } from './subscription.js';
import { decodeClockTime, type EncodedAccount, readVaultStateOnce } from './vault-state-reader.js';

export interface LiveVaultAccountsDeps {
  readonly rpc: SolanaRpc;
  readonly rpcEndpoints: RpcEndpoints;
  readonly programId: Address;
  readonly logger: Logger;
  /** Vaults held live at most; reading another lets the least recently read go. */
  readonly maxVaults: number;
  /** A vault not read for this long is let go. */
  readonly idleMs: number;
  /** Counts where each read was answered from. */
  readonly onRead?: (source: 'live' | 'fresh') => void;
  readonly now?: () => number;
}

export interface LiveVaultAccounts extends VaultChainStateReader {
  /** Vaults held now (live or being subscribed). */
  size(): number;
  /** Ends every subscription and timer. */
  close(): void;
}

/** Longest silence of the Clock's subscription that still counts as a connection delivering notifications. */
export const HEARTBEAT_MS = 5_000;

interface Live extends LiveContext {
  readonly deps: LiveVaultAccountsDeps;
  readonly entries: Map<string, Entry>;
  /** When the Clock subscription last delivered (or was acknowledged). */
  heartbeatAt: number;
  /** Ends the current Clock subscription, so that the loop connects again. */
  recycle: AbortController | null;
  loop: AbortController | null;
  sweeper: NodeJS.Timeout | undefined;
}

export function createLiveVaultAccounts(deps: LiveVaultAccountsDeps): LiveVaultAccounts {
  const live: Live = {
    deps,
    rpc: deps.rpc,
    programId: deps.programId,
    logger: deps.logger,
    now: deps.now ?? Date.now,
    entries: new Map(),
    connection: null,
    clock: undefined,
    heartbeatAt: 0,
    recycle: null,
    loop: null,
    sweeper: undefined,
  };
  return {
    read: (vault, depositAddress, timeoutMs) => read(live, vault, depositAddress, timeoutMs),
    size: () => live.entries.size,
    close: () => {
      for (const entry of [...live.entries.values()]) remove(live, entry);
      stopLoop(live);
    },
  };
}

async function read(live: Live, vault: string, deposit: string, timeoutMs: number): Promise<VaultChainState> {
  const at = live.now();
  let entry = live.entries.get(vault);
  if (entry === undefined || entry.deposit !== deposit)
    entry = track(live, vault as Address, deposit as Address, at);
  entry.lastUsed = at;
  if (entry.live && answering(live, at)) return answer(live, entry);
  if (entry.subscription === null && live.connection !== null && at >= entry.retryAt)
    subscribeEntry(live, entry, live.connection);
  const signal = AbortSignal.timeout(timeoutMs);
  // A seed on its way is a read made after the subscriptions were acknowledged: as fresh as another.
  if (
    entry.ready !== null &&
    (await settledBefore(entry.ready, signal)) &&
    entry.live &&
    answering(live, live.now())
  )
    return answer(live, entry);
  live.deps.onRead?.('fresh');
  return readVaultStateOnce(live.rpc, live.programId, vault, deposit, signal, live.logger);
}

function answer(live: Live, entry: Entry): VaultChainState {
  live.deps.onRead?.('live');
  return snapshotOf(entry, live.clock as NonNullable<Live['clock']>);
}

/** Whether memory may answer at `at`: connected, the Clock known and heard from recently. */
function answering(live: Live, at: number): boolean {
  if (live.connection === null || live.clock === undefined) return false;
  if (at - live.heartbeatAt <= HEARTBEAT_MS) return true;
  resync(live, at);
  return false;
}

/** A Clock notification: after a silence, what is held may have missed changes. */
function heardClock(live: Live, slot: bigint, time: bigint): void {
  const at = live.now();
  if (at - live.heartbeatAt > HEARTBEAT_MS) {
    resync(live, at);
    return;
  }
  live.heartbeatAt = at;
  if (isNewer(live.clock, slot)) live.clock = { slot, value: time };
}

/** Drops everything held and replaces the connection; reads are fresh until it is back and seeded. */
function resync(live: Live, at: number): void {
  if (live.connection === null) return;
  live.logger.warn(
    { silentMs: at - live.heartbeatAt },
    'live vault accounts: the Clock went silent; reconnecting',
  );
  live.recycle?.abort();
  live.recycle = null;
  disconnected(live);
}

function connected(
  live: Live,
  endpoint: RpcEndpoint,
  signal: AbortSignal,
  subscriptions: SolanaRpcSubscriptions,
): void {
  const connection = { endpoint, signal, subscriptions };
  live.connection = connection;
  live.heartbeatAt = live.now();
  for (const entry of live.entries.values()) subscribeEntry(live, entry, connection);
}

function disconnected(live: Live): void {
  live.connection = null;
  live.clock = undefined;
  for (const entry of live.entries.values()) releaseEntry(entry);
}

/** The connection: one Clock subscription kept up by the shared reconnect loop; vaults ride on it. */
function startLoop(live: Live): void {
  const controller = new AbortController();
  live.loop = controller;
  void runSubscription(
    { rpcEndpoints: live.deps.rpcEndpoints, logger: live.logger, name: 'the live vault accounts' },
    (subscriptions, signal) => {
      const recycle = new AbortController();
      live.recycle = recycle;
      return subscriptions
        .accountNotifications(CLOCK_SYSVAR_ADDRESS, CONFIRMED_BASE64)
        .subscribe({ abortSignal: AbortSignal.any([signal, recycle.signal]) });
    },
    {
      onConnected: (endpoint, signal, subscriptions) => connected(live, endpoint, signal, subscriptions),
      onNotification: (n) => heardClock(live, n.context.slot, decodeClockTime(n.value as EncodedAccount)),
      onDisconnected: (error, retryInMs, endpoint) => {
        disconnected(live);
        live.logger.warn(
          {
            endpoint: endpoint.label,
            retryInMs,
            err: error instanceof Error ? error.message : String(error),
          },
          'live vault accounts: the connection dropped; reading fresh until it is back',
        );
      },
    },
    controller.signal,
  );
  const every = Math.max(1_000, Math.min(60_000, Math.floor(live.deps.idleMs / 4)));
  live.sweeper = setInterval(() => sweep(live), every);
  live.sweeper.unref();
}

function stopLoop(live: Live): void {
  live.loop?.abort();
  live.loop = null;
  clearInterval(live.sweeper);
  live.sweeper = undefined;
  disconnected(live);
}

function remove(live: Live, entry: Entry): void {
  releaseEntry(entry);
  live.entries.delete(entry.vault);
}

/** Lets idle vaults go; with none left, the connection closes too. */
function sweep(live: Live): void {
  const idleBefore = live.now() - live.deps.idleMs;
  for (const entry of live.entries.values()) if (entry.lastUsed < idleBefore) remove(live, entry);
  if (live.entries.size === 0) stopLoop(live);
}

function track(live: Live, vault: Address, deposit: Address, at: number): Entry {
  const known = live.entries.get(vault);
  if (known !== undefined) remove(live, known);
  if (live.entries.size >= live.deps.maxVaults) {
    let oldest: Entry | undefined;
    for (const entry of live.entries.values())
      if (oldest === undefined || entry.lastUsed < oldest.lastUsed) oldest = entry;
    if (oldest !== undefined) remove(live, oldest);
  }
  const entry = createEntry(vault, deposit, at);
  live.entries.set(vault, entry);
  if (live.loop === null) startLoop(live);
  return entry;
}

/** The promise's value, or false once the signal aborts first. */
function settledBefore(ready: Promise<boolean>, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const abort = () => resolve(false);
    signal.addEventListener('abort', abort, { once: true });
    void ready.then((value) => {
      signal.removeEventListener('abort', abort);
      resolve(value);
    });
  });
}
