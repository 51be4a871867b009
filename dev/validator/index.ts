import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Address, RpcTransport } from '@solana/kit';
import { type WebSocket, WebSocketServer } from 'ws';
import { type ClusterFinality, createClusterFinality } from './finality.js';
import type { ProgramEvent } from './program-events.js';
import { DEFAULT_PROGRAM_ID } from './program-idl.js';
import { findTreasuryAddress } from './program-instructions.js';
import { stringifyJson, toJson } from './render.js';
import { createPrioritizationFees, createRpcMethods, DEVNET_GENESIS_HASH, RpcError } from './rpc.js';

export { type ClusterFinality, FINALIZED_DEPTH, type SlotStatus } from './finality.js';
export { STATUS_CACHE_SLOTS } from './rpc.js';

import { createScenarios, type Scenarios } from './scenarios.js';
import { LedgerState, type TransactionError } from './state.js';
import { createSubscriptionHub, type SubscriptionHub } from './subscriptions.js';

/** A Solana validator on 127.0.0.1 for tests: JSON-RPC over HTTP, pubsub over WebSocket, scenario controls. */

export type LedgerEntry = {
  signature: string;
  slot: number;
  blockTime: number;
  err: TransactionError | null;
  events: ProgramEvent[];
  logs: string[];
};

export type RpcRequestRecord = {
  methods: string[];
  /** Each call's params, in the order of `methods`. */
  params: unknown[];
  startedAt: number;
  endedAt: number;
};

/** How many JSON-RPC calls of each method the requests made (a batch counts each call). */
export function countRpcCalls(requests: readonly RpcRequestRecord[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const method of requests.flatMap((r) => r.methods)) counts[method] = (counts[method] ?? 0) + 1;
  return counts;
}

/** How many RPC round trips ran one after another: requests that overlap in time count as one. */
export function countSequentialRoundTrips(requests: readonly RpcRequestRecord[]): number {
  let waves = 0;
  let waveEnd = Number.NEGATIVE_INFINITY;
  for (const r of [...requests].sort((a, b) => a.startedAt - b.startedAt)) {
    if (r.startedAt >= waveEnd) waves += 1;
    waveEnd = Math.max(waveEnd, r.endedAt);
  }
  return waves;
}

export type FakeValidator = Scenarios & {
  rpcUrl: string;
  wsUrl: string;
  programId: Address;
  treasury: Address;
  /** The ledger itself, for assertions the scenario methods do not cover. */
  state: LedgerState;
  /**
   * The cluster's finality and forks: the finalized slot (fixable), dropping a confirmed transaction,
   * killing a slot, and the slot statuses a `slots` stream would carry (onSlotStatus).
   */
  finality: ClusterFinality;
  /**
   * The JSON-RPC methods as a kit transport in this process, without HTTP: for tests that call the node
   * hundreds of times. Answers go through the same JSON text as over HTTP; not logged in rpcRequests().
   */
  transport: RpcTransport;
  /** Every transaction that mentions the vault program, oldest first. */
  ledger(): LedgerEntry[];
  getVault(vault: Address): ReturnType<LedgerState['getVault']>;
  balance(address: Address): bigint;
  /** Fix the block time (unix seconds); each transaction then adds autoAdvanceSeconds. */
  setTime(unixSeconds: number, autoAdvanceSeconds?: number): void;
  advanceTime(seconds: number): void;
  /** Terminate every WebSocket connection (clients see an abnormal close). */
  dropSockets(): void;
  /** While on: RPC answers 503, WebSocket upgrades are refused and open sockets dropped. */
  setOutage(on: boolean): void;
  /** While off: transactions land but no logsNotification is sent (missed notifications). */
  setNotificationsEnabled(on: boolean): void;
  /** Scripts getRecentPrioritizationFees (µlamports per CU, oldest slot first); per account when `accounts` is given. */
  setPrioritizationFees(values: readonly (number | bigint)[], accounts?: readonly Address[]): void;
  /** Makes a JSON-RPC method fail: `http` answers the whole request 503, `rpc` a JSON-RPC error; null heals. */
  failMethod(method: string, mode: 'http' | 'rpc' | null): void;
  /** What getGenesisHash answers from now on (a node now serving another ledger). */
  setGenesisHash(hash: string): void;
  /** Adds control endpoints (`POST /_control/<name>`), e.g. a fake gRPC server's faults beside the ledger. */
  addControls(controls: Record<string, (...args: never[]) => unknown>): void;
  /** Delays every JSON-RPC answer by this many milliseconds (the answer is computed on arrival). */
  setLatency(ms: number): void;
  /** The JSON-RPC requests since the last reset, with their methods and arrival/answer times (Infinity while in flight). */
  rpcRequests(): RpcRequestRecord[];
  resetRpcRequests(): void;
  close(): Promise<void>;
};

const CONTROL_PREFIX = '/_control/';

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

// As solana-test-validator and public RPC nodes answer: any page may call the JSON-RPC endpoint.
const CORS_HEADERS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'POST, GET, OPTIONS',
  'access-control-allow-headers': 'content-type, solana-client',
};

function send(res: ServerResponse, status: number, body: string): void {
  res.writeHead(status, {
    ...CORS_HEADERS,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}

export async function startFakeValidator(
  options: { programId?: Address; port?: number; genesisHash?: string } = {},
): Promise<FakeValidator> {
  const programId = options.programId ?? DEFAULT_PROGRAM_ID;
  const [treasury] = await findTreasuryAddress(programId);
  const state = new LedgerState(programId);
  const scenarios = createScenarios(state, treasury);
  const fees = createPrioritizationFees();
  let genesisHash = options.genesisHash ?? DEVNET_GENESIS_HASH;
  const finality = createClusterFinality(state);
  const call = createRpcMethods(state, treasury, scenarios.airdrop, fees, () => genesisHash, finality);
  let outage = false;
  let latencyMs = 0;
  const failing = new Map<string, 'http' | 'rpc'>();
  let requests: RpcRequestRecord[] = [];
  const failMethod = (method: string, mode: 'http' | 'rpc' | null) =>
    mode === null ? failing.delete(method) : failing.set(method, mode);

  async function answer(request: unknown): Promise<unknown> {
    const {
      id = null,
      method,
      params,
    } = (request ?? {}) as { id?: unknown; method?: unknown; params?: unknown };
    if (typeof method !== 'string')
      return { jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid request' } };
    if (failing.get(method) === 'rpc')
      return { jsonrpc: '2.0', id, error: { code: -32005, message: 'Node is behind by 42 slots' } };
    try {
      return { jsonrpc: '2.0', id, result: await call(method, params) };
    } catch (error) {
      const rpc =
        error instanceof RpcError ? error : new RpcError(-32603, `Internal error: ${String(error)}`);
      const body = {
        code: rpc.code,
        message: rpc.message,
        ...(rpc.data === undefined ? {} : { data: rpc.data }),
      };
      return { jsonrpc: '2.0', id, error: body };
    }
  }

  const controls: Record<string, (...args: never[]) => unknown> = {
    ...scenarios,
    ledger: () => ledger(),
    setTime: (t: number, step?: number) => state.setTime(t, step),
    advanceTime: (s: number) => state.advanceTime(s),
    dropSockets: () => hub.dropAll(),
    setOutage: (on: boolean) => setOutage(on),
    setNotificationsEnabled: (on: boolean) => hub.setEnabled(on),
    setPrioritizationFees: (values: number[], accounts?: Address[]) => fees.set(values, accounts),
    failMethod: (method: string, mode: 'http' | 'rpc' | null) => failMethod(method, mode),
    setLatency: (ms: number) => {
      latencyMs = ms;
    },
    getVault: (vault: Address) => state.getVault(vault) ?? null,
    balance: (address: Address) => state.balance(address),
    dropTransaction: (signature: string) => finality.dropTransaction(signature),
    killSlot: (slot: number) => finality.killSlot(slot),
    setFinalizedSlot: (slot: number | null) => finality.setFinalizedSlot(slot),
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = req.url ?? '/';
    if (url.startsWith(CONTROL_PREFIX)) {
      const control = controls[url.slice(CONTROL_PREFIX.length)];
      if (control === undefined || req.method !== 'POST')
        return send(res, 404, '{"error":"unknown control"}');
      try {
        const text = await readBody(req);
        const parsed: unknown = text.trim() === '' ? [] : JSON.parse(text);
        const args = (Array.isArray(parsed) ? parsed : [parsed]) as never[];
        return send(res, 200, JSON.stringify({ result: toJson((await control(...args)) ?? null) }));
      } catch (error) {
        return send(
          res,
          400,
          JSON.stringify({ error: error instanceof Error ? error.message : String(error) }),
        );
      }
    }
    if (outage) return send(res, 503, '{"error":"service unavailable"}');
    if (req.method === 'OPTIONS') {
      res.writeHead(204, CORS_HEADERS);
      return void res.end();
    }
    if (req.method === 'GET' && url === '/health') return send(res, 200, '"ok"');
    if (req.method !== 'POST') return send(res, 405, '{"error":"method not allowed"}');
    let request: unknown;
    try {
      request = JSON.parse(await readBody(req));
    } catch {
      return send(
        res,
        200,
        stringifyJson({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }),
      );
    }
    const startedAt = performance.now();
    const list: unknown[] = Array.isArray(request) ? request : [request];
    const methods = list.map((r) => String((r as { method?: unknown } | null)?.method));
    const params = list.map((r) => (r as { params?: unknown } | null)?.params);
    if (methods.some((m) => failing.get(m) === 'http'))
      return send(res, 503, '{"error":"service unavailable"}');
    // Logged on arrival (endedAt set once answered), so a test can act while an answer is in flight.
    const record = { methods, params, startedAt, endedAt: Number.POSITIVE_INFINITY };
    requests.push(record);
    const result = Array.isArray(request) ? await Promise.all(request.map(answer)) : await answer(request);
    if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs));
    record.endedAt = performance.now();
    send(res, 200, stringifyJson(result));
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => send(res, 500, JSON.stringify({ error: String(error) })));
  });
  // Scenario calls run synchronously and can hold the event loop for seconds; an idle keep-alive socket
  // must not time out meanwhile, or a client reusing it reads ECONNRESET (public RPC nodes keep idle
  // connections for about a minute too).
  server.keepAliveTimeout = 65_000;
  const wss = new WebSocketServer({ noServer: true });
  const hub: SubscriptionHub = createSubscriptionHub(state);
  server.on('upgrade', (req, socket, head) => {
    if (outage) {
      socket.end('HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws: WebSocket) => hub.attach(ws));
  });

  function setOutage(on: boolean): void {
    outage = on;
    if (on) hub.dropAll();
  }

  function ledger(): LedgerEntry[] {
    return state.transactions
      .filter((r) => r.mentionsProgram)
      .map(({ signature, slot, blockTime, err, events, logs }) => ({
        signature,
        slot,
        blockTime,
        err,
        events,
        logs,
      }));
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    ...scenarios,
    rpcUrl: `http://127.0.0.1:${port}`,
    wsUrl: `ws://127.0.0.1:${port}`,
    programId,
    treasury,
    state,
    finality,
    transport: (async ({ payload }: { payload: unknown }) => {
      if (outage) throw new Error('fake validator: outage');
      return JSON.parse(stringifyJson(await answer(payload)));
    }) as RpcTransport,
    ledger,
    getVault: (vault) => state.getVault(vault),
    balance: (address) => state.balance(address),
    setTime: (t, step) => state.setTime(t, step),
    advanceTime: (s) => state.advanceTime(s),
    dropSockets: () => hub.dropAll(),
    setOutage,
    setNotificationsEnabled: (on) => hub.setEnabled(on),
    setPrioritizationFees: (values, accounts) => fees.set(values, accounts),
    failMethod,
    setGenesisHash: (hash) => {
      genesisHash = hash;
    },
    addControls: (more) => {
      Object.assign(controls, more);
    },
    setLatency: (ms) => {
      latencyMs = ms;
    },
    rpcRequests: () => [...requests],
    resetRpcRequests: () => {
      requests = [];
    },
    async close() {
      hub.dropAll();
      hub.stop();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
