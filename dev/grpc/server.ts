// A Yellowstone (Dragon's Mouth) gRPC server on 127.0.0.1 over the fake validator's ledger: the
// program's transactions, block metas and slot statuses at confirmed, replay from a slot within a window,
// and the faults a provider shows (refusing fromSlot, dropping streams, stalling, being unreachable).
import * as grpc from '@grpc/grpc-js';
import {
  GetSlotResponse,
  GetVersionResponse,
  PongResponse,
  SubscribeRequest,
} from '@triton-one/yellowstone-grpc';
import type { LedgerState, TransactionRecord } from '../validator/state.js';
import { decodeSubscribeRequest } from './request.js';
import { blockMetaUpdate, encodeUpdate, SLOT_STATUS, slotUpdate, transactionUpdate } from './updates.js';

/** Slots a real cluster confirms before it finalizes one. */
const FINALIZE_DEPTH = 32;

export interface FakeGrpcOptions {
  /** Port on 127.0.0.1 (default: any free one). */
  port?: number;
  /** How many slots back `fromSlot` may reach (default 3 000, as providers keep about that many). */
  replayWindowSlots?: number;
  /** How often the server pings each stream (default 15 s). */
  pingMs?: number;
  /** Idle time after a transaction before its slot's block meta is sent (default 20 ms). */
  closeSlotMs?: number;
}

export interface FakeGrpc {
  url: string;
  /** Every subscribe request received, in order (tests read `fromSlot` here). */
  requests(): SubscribeRequest[];
  /** Client pings received (answers to the server's pings and the client's own). */
  pingsReceived(): number;
  /** Streams open now. */
  streams(): number;
  /** Refuse every `fromSlot` (a provider without replay). */
  setRefuseFromSlot(on: boolean): void;
  /** End every open stream with UNAVAILABLE (a provider restarting). */
  dropStreams(): void;
  /** The streams open now receive nothing more, and stay open (what they miss stays in the replay window). */
  stallStreams(): void;
  /** While on, every stream is dropped and new ones fail with UNAVAILABLE. */
  setOutage(on: boolean): void;
  /** Reports a slot dead on the slots stream. */
  markDead(slot: number): void;
  close(): Promise<void>;
}

type Stream = grpc.ServerDuplexStream<SubscribeRequest, Buffer>;
type Entry = { slot: number; bytes: Buffer; kind: 'transaction' | 'meta'; failed?: boolean };
type Client = {
  call: Stream;
  txFilter: string | null;
  failed: boolean;
  metaFilter: string | null;
  slotFilter: string | null;
  stalled: boolean;
};

const passBuffer = (value: Buffer) => value;
const geyserService: grpc.ServiceDefinition = {
  Subscribe: {
    path: '/geyser.Geyser/Subscribe',
    requestStream: true,
    responseStream: true,
    requestSerialize: (m: SubscribeRequest) => Buffer.from(SubscribeRequest.encode(m).finish()),
    requestDeserialize: (b: Buffer) => decodeSubscribeRequest(b),
    responseSerialize: passBuffer,
    responseDeserialize: passBuffer,
  },
  Ping: unary('/geyser.Geyser/Ping'),
  GetSlot: unary('/geyser.Geyser/GetSlot'),
  GetVersion: unary('/geyser.Geyser/GetVersion'),
};

function unary(path: string): grpc.MethodDefinition<Buffer, Buffer> {
  return {
    path,
    requestStream: false,
    responseStream: false,
    requestSerialize: passBuffer,
    requestDeserialize: passBuffer,
    responseSerialize: passBuffer,
    responseDeserialize: passBuffer,
  };
}

export async function startFakeGrpc(
  validator: { state: LedgerState; programId: string },
  options: FakeGrpcOptions = {},
): Promise<FakeGrpc> {
  const { state, programId } = validator;
  const window = options.replayWindowSlots ?? 3_000;
  const clients = new Set<Client>();
  const requests: SubscribeRequest[] = [];
  let history: Entry[] = [];
  /** Entries before this index fell out of the replay window. */
  let head = 0;
  let pings = 0;
  let refuseFromSlot = false;
  let outage = false;
  let openSlot: { slot: number; blockTime: number } | null = null;
  let lastClosed = state.slot - 1;
  let closeTimer: NodeJS.Timeout | undefined;

  const send = (client: Client, entry: Entry) => {
    const filter = entry.kind === 'transaction' ? client.txFilter : client.metaFilter;
    if (entry.failed === true && !client.failed) return;
    if (filter !== null && !client.stalled) client.call.write(entry.bytes);
  };
  const publish = (entry: Entry) => {
    history.push(entry);
    while (head < history.length && (history[head]?.slot ?? 0) < state.slot - window) head += 1;
    if (head > 10_000) {
      history = history.slice(head);
      head = 0;
    }
    for (const client of clients) send(client, entry);
  };
  const broadcastSlot = (slot: number, status: number) => {
    for (const client of clients) {
      if (client.slotFilter !== null && !client.stalled)
        client.call.write(slotUpdate(slot, status, client.slotFilter));
    }
  };
  /** A slot is over: its block meta (in the replay history), then its confirmed status and a finalized one. */
  const closeSlot = (slot: number, blockTime: number) => {
    if (slot <= lastClosed) return;
    lastClosed = slot;
    publish({ slot, kind: 'meta', bytes: blockMetaUpdate(slot, blockTime, 'blocks') });
    broadcastSlot(slot, SLOT_STATUS.confirmed);
    if (slot - FINALIZE_DEPTH > 0) broadcastSlot(slot - FINALIZE_DEPTH, SLOT_STATUS.finalized);
  };
  const closeOpen = () => {
    clearTimeout(closeTimer);
    if (openSlot !== null) closeSlot(openSlot.slot, openSlot.blockTime);
    openSlot = null;
  };

  const offTransaction = state.onTransaction((record: TransactionRecord) => {
    if (!record.mentionsProgram) return;
    if (openSlot !== null && openSlot.slot !== record.slot) closeOpen();
    const bytes = transactionUpdate(record, 'vault');
    publish({ slot: record.slot, kind: 'transaction', bytes, failed: record.err !== null });
    openSlot ??= { slot: record.slot, blockTime: record.blockTime };
    clearTimeout(closeTimer);
    closeTimer = setTimeout(closeOpen, options.closeSlotMs ?? 20);
  });
  const offSlot = state.onSlot((slot) => {
    closeOpen();
    closeSlot(slot - 1, state.blockTime(slot - 1) ?? state.now());
  });

  const fail = (call: Stream, code: grpc.status, details: string) => {
    call.emit('error', { code, details, message: details });
  };

  function subscribe(call: Stream): void {
    let client: Client | null = null;
    call.on('data', (request: SubscribeRequest) => {
      if (client !== null) {
        // Later requests: a ping is answered with a pong; filters are not replaced by the fake.
        if (request.ping !== undefined) {
          pings += 1;
          if (!client.stalled)
            call.write(encodeUpdate({ filters: [], pong: { id: request.ping.id }, createdAt: new Date() }));
        }
        return;
      }
      requests.push(request);
      if (outage) return fail(call, grpc.status.UNAVAILABLE, 'fake gRPC: outage');
      client = accept(call, request);
    });
    call.on('error', () => undefined);
    call.on('cancelled', () => {
      if (client !== null) clients.delete(client);
    });
    call.on('end', () => {
      if (client !== null) clients.delete(client);
      call.end();
    });
  }

  function accept(call: Stream, request: SubscribeRequest): Client | null {
    const txEntry = Object.entries(request.transactions).find(([, f]) =>
      f.accountInclude.includes(programId),
    );
    const client: Client = {
      call,
      txFilter: txEntry?.[0] ?? null,
      failed: txEntry?.[1].failed !== false,
      metaFilter: Object.keys(request.blocksMeta)[0] ?? null,
      slotFilter: Object.keys(request.slots)[0] ?? null,
      stalled: false,
    };
    if (request.fromSlot !== undefined) {
      const from = Number(request.fromSlot);
      const first = Math.max(0, state.slot - window);
      if (refuseFromSlot || from < first) {
        fail(
          call,
          grpc.status.INVALID_ARGUMENT,
          `fromSlot ${from} is not available, first available slot: ${first}`,
        );
        return null;
      }
      for (let i = head; i < history.length; i++) {
        const entry = history[i] as Entry;
        if (entry.slot >= from) send(client, entry);
      }
    }
    clients.add(client);
    // Announce the current slot at once, as a live cluster would within 400 ms.
    if (client.slotFilter !== null)
      call.write(slotUpdate(state.slot, SLOT_STATUS.confirmed, client.slotFilter));
    return client;
  }

  const pinger = setInterval(() => {
    const ping = encodeUpdate({ filters: [], ping: {}, createdAt: new Date() });
    for (const client of clients) if (!client.stalled) client.call.write(ping);
  }, options.pingMs ?? 15_000);

  const server = new grpc.Server();
  server.addService(geyserService, {
    Subscribe: subscribe,
    Ping: (_call: unknown, done: grpc.sendUnaryData<Buffer>) =>
      done(null, Buffer.from(PongResponse.encode({ count: 1 }).finish())),
    GetSlot: (_call: unknown, done: grpc.sendUnaryData<Buffer>) =>
      done(null, Buffer.from(GetSlotResponse.encode({ slot: String(state.slot) }).finish())),
    GetVersion: (_call: unknown, done: grpc.sendUnaryData<Buffer>) =>
      done(null, Buffer.from(GetVersionResponse.encode({ version: '{"version":"fake"}' }).finish())),
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(
      `127.0.0.1:${options.port ?? 0}`,
      grpc.ServerCredentials.createInsecure(),
      (error, bound) => (error === null ? resolve(bound) : reject(error)),
    ),
  );

  const dropAll = (details: string) => {
    for (const client of clients) fail(client.call, grpc.status.UNAVAILABLE, details);
    clients.clear();
  };

  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => [...requests],
    pingsReceived: () => pings,
    streams: () => clients.size,
    setRefuseFromSlot: (on) => {
      refuseFromSlot = on;
    },
    dropStreams: () => dropAll('fake gRPC: stream dropped'),
    stallStreams: () => {
      for (const client of clients) client.stalled = true;
    },
    setOutage: (on) => {
      outage = on;
      if (on) dropAll('fake gRPC: outage');
    },
    markDead: (slot) => broadcastSlot(slot, SLOT_STATUS.dead),
    async close() {
      clearInterval(pinger);
      clearTimeout(closeTimer);
      offTransaction();
      offSlot();
      dropAll('fake gRPC: closing');
      server.forceShutdown();
    },
  };
}
