import { type Address, isAddress } from '@solana/kit';
import type { WebSocket } from 'ws';
import { CLOCK_SYSVAR_ADDRESS } from './clock-sysvar.js';
import { SYSTEM_PROGRAM_ADDRESS } from './program-idl.js';
import { renderAccount, stringifyJson } from './render.js';
import type { LedgerState, TransactionRecord } from './state.js';

/** The pubsub side of the node: logs, slot and account subscriptions over WebSocket, as kit's client expects. */

type AccountSubscription = { kind: 'account'; address: Address; encoding: string; last: string };
type Subscription = { kind: 'logs'; mentions: string | null } | { kind: 'slot' } | AccountSubscription;

export type SubscriptionHub = {
  attach(ws: WebSocket): void;
  dropAll(): void;
  setEnabled(on: boolean): void;
  stop(): void;
};

const UNSUBSCRIBE = new Set(['logsUnsubscribe', 'slotUnsubscribe', 'accountUnsubscribe']);
/** How often the validator makes a slot while someone watches the Clock (a real one: every ~400 ms). */
const SLOT_MS = 400;

export function createSubscriptionHub(state: LedgerState): SubscriptionHub {
  const clients = new Map<WebSocket, Map<number, Subscription>>();
  let nextId = 1;
  let enabled = true;
  let ticker: NodeJS.Timeout | undefined;

  const reply = (ws: WebSocket, id: unknown, body: { result: unknown } | { error: unknown }) =>
    ws.send(stringifyJson({ jsonrpc: '2.0', ...body, id }));

  type Reply = { result: unknown } | { error: { code: number; message: string } };

  /** An account as accountNotification carries it: a closed or never funded one is an empty system account. */
  function renderNotified(address: Address, encoding: string) {
    const info = state.accountInfo(address) ?? {
      lamports: 0n,
      owner: SYSTEM_PROGRAM_ADDRESS,
      data: new Uint8Array(),
      executable: false,
    };
    return renderAccount(info, encoding);
  }

  function subscribeAccount(subs: Map<number, Subscription>, params: unknown[]): Reply {
    const [address, config] = params as [unknown, { encoding?: unknown } | undefined];
    if (typeof address !== 'string' || !isAddress(address)) {
      return { error: { code: -32602, message: 'Invalid Request: Invalid pubkey provided' } };
    }
    const encoding = typeof config?.encoding === 'string' ? config.encoding : 'binary';
    const subId = nextId++;
    // The node notifies changes only: what the account holds now is the baseline.
    subs.set(subId, {
      kind: 'account',
      address,
      encoding,
      last: stringifyJson(renderNotified(address, encoding)),
    });
    if (address === CLOCK_SYSVAR_ADDRESS) startTicker();
    return { result: subId };
  }

  function respond(subs: Map<number, Subscription>, method: unknown, params: unknown[]): Reply {
    if (method === 'logsSubscribe') {
      const filter = params[0];
      let mentions: string | null = null;
      if (filter !== 'all' && filter !== 'allWithVotes') {
        const list = (filter as { mentions?: unknown } | undefined)?.mentions;
        if (!Array.isArray(list) || list.length !== 1 || typeof list[0] !== 'string') {
          return { error: { code: -32602, message: 'Invalid Request: Only 1 address supported' } };
        }
        mentions = list[0];
      }
      const subId = nextId++;
      subs.set(subId, { kind: 'logs', mentions });
      return { result: subId };
    }
    if (method === 'slotSubscribe') {
      const subId = nextId++;
      subs.set(subId, { kind: 'slot' });
      return { result: subId };
    }
    if (method === 'accountSubscribe') return subscribeAccount(subs, params);
    if (typeof method === 'string' && UNSUBSCRIBE.has(method)) {
      if (!subs.delete(Number(params[0])))
        return { error: { code: -32602, message: 'Invalid subscription id.' } };
      return { result: true };
    }
    return { error: { code: -32601, message: 'Method not found' } };
  }

  function onMessage(ws: WebSocket, subs: Map<number, Subscription>, text: string): void {
    let message: { id?: unknown; method?: unknown; params?: unknown };
    try {
      message = JSON.parse(text) as typeof message;
    } catch {
      reply(ws, null, { error: { code: -32700, message: 'Parse error' } });
      return;
    }
    // kit's keep-alive `ping` has no id: a notification, nothing to answer
    if (message.id === undefined) return;
    reply(ws, message.id, respond(subs, message.method, Array.isArray(message.params) ? message.params : []));
  }

  function broadcast(build: (sub: Subscription, subId: number) => unknown | undefined): void {
    if (!enabled) return;
    for (const [ws, subs] of clients) {
      if (ws.readyState !== ws.OPEN) continue;
      for (const [subId, sub] of subs) {
        const message = build(sub, subId);
        if (message !== undefined) ws.send(stringifyJson(message));
      }
    }
  }

  /** accountNotification for each watched account among `addresses` whose contents changed. */
  function notifyAccounts(addresses: ReadonlySet<string>): void {
    broadcast((sub, subscription) => {
      if (sub.kind !== 'account' || !addresses.has(sub.address)) return undefined;
      const value = renderNotified(sub.address, sub.encoding);
      const text = stringifyJson(value);
      if (text === sub.last) return undefined;
      sub.last = text;
      const context = { slot: state.slot };
      return {
        jsonrpc: '2.0',
        method: 'accountNotification',
        params: { result: { context, value }, subscription },
      };
    });
  }

  /**
   * A real validator makes a slot every ~400 ms and rewrites the Clock in each; this one does so while
   * someone watches the Clock (with a fixed block time the slot moves and the time stays).
   */
  function startTicker(): void {
    ticker ??= setInterval(() => {
      const watched = [...clients.values()].some((subs) =>
        [...subs.values()].some((s) => s.kind === 'account' && s.address === CLOCK_SYSVAR_ADDRESS),
      );
      if (watched) state.advanceSlot();
      else stopTicker();
    }, SLOT_MS).unref();
  }
  function stopTicker(): void {
    clearInterval(ticker);
    ticker = undefined;
  }

  const offTransaction = state.onTransaction((record: TransactionRecord) =>
    broadcast((sub, subscription) => {
      if (sub.kind !== 'logs') return undefined;
      if (sub.mentions !== null && !record.accountKeys.includes(sub.mentions as never)) return undefined;
      const value = { signature: record.signature, err: record.err, logs: record.logs };
      return {
        jsonrpc: '2.0',
        method: 'logsNotification',
        params: { result: { context: { slot: record.slot }, value }, subscription },
      };
    }),
  );
  const offAccounts = state.onAccounts((addresses) => notifyAccounts(new Set(addresses)));
  const clockOnly = new Set<string>([CLOCK_SYSVAR_ADDRESS]);
  const offSlot = state.onSlot((slot) => {
    broadcast((sub, subscription) =>
      sub.kind === 'slot'
        ? {
            jsonrpc: '2.0',
            method: 'slotNotification',
            params: { result: { parent: slot - 1, root: slot - 32, slot }, subscription },
          }
        : undefined,
    );
    notifyAccounts(clockOnly);
  });

  return {
    attach(ws) {
      const subs = new Map<number, Subscription>();
      clients.set(ws, subs);
      ws.on('message', (data) => onMessage(ws, subs, data.toString()));
      ws.on('close', () => clients.delete(ws));
      ws.on('error', () => clients.delete(ws));
    },
    dropAll() {
      for (const ws of clients.keys()) ws.terminate();
      clients.clear();
    },
    setEnabled(on) {
      enabled = on;
    },
    stop() {
      stopTicker();
      offTransaction();
      offAccounts();
      offSlot();
    },
  };
}
