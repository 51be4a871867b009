import type { WebSocket } from 'ws';
import { stringifyJson } from './render.js';
import type { LedgerState, TransactionRecord } from './state.js';

/** The pubsub side of the node: logsSubscribe / slotSubscribe over WebSocket, as kit's client expects. */

type Subscription = { kind: 'logs'; mentions: string | null } | { kind: 'slot' };

export type SubscriptionHub = {
  attach(ws: WebSocket): void;
  dropAll(): void;
  setEnabled(on: boolean): void;
  stop(): void;
};

export function createSubscriptionHub(state: LedgerState): SubscriptionHub {
  const clients = new Map<WebSocket, Map<number, Subscription>>();
  let nextId = 1;
  let enabled = true;

  const reply = (ws: WebSocket, id: unknown, body: { result: unknown } | { error: unknown }) =>
    ws.send(stringifyJson({ jsonrpc: '2.0', ...body, id }));

  type Reply = { result: unknown } | { error: { code: number; message: string } };

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
    if (method === 'logsUnsubscribe' || method === 'slotUnsubscribe') {
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
  const offSlot = state.onSlot((slot) =>
    broadcast((sub, subscription) =>
      sub.kind === 'slot'
        ? {
            jsonrpc: '2.0',
            method: 'slotNotification',
            params: { result: { parent: slot - 1, root: slot - 32, slot }, subscription },
          }
        : undefined,
    ),
  );

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
      offTransaction();
      offSlot();
    },
  };
}
