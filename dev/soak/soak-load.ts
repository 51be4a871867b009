// The soak's steady mixed load on one running service: cached and uncached reads, authenticated
// writes, Blink GETs and POSTs, live-feed streams that connect and drop, program transactions on the
// fake validator, and webhook receivers (fast, slow, failing at first, flaky) that count what they got.
// Every request comes from one of thousands of client addresses (IPv4 and IPv6, through X-Forwarded-For
// as behind one proxy), a pool that slides on over time so new clients keep arriving, each far under
// its budget: a 429 is a failure like any other.
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Address } from '@solana/kit';
import type { FakeValidator } from '../validator/index.js';

/** Clients sending at any moment; the pool moves on by CLIENT_CHURN_PER_SECOND new ones a second. */
const CLIENT_POOL = 2_000;
const CLIENT_CHURN_PER_SECOND = 5;
const startedAt = Date.now();

/**
 * One client's address: even indexes IPv4 (256 clients to a /24), odd ones in an IPv6 /48 of their own,
 * a site each. The service shares some budgets by network (an IPv4 /24, an IPv6 /48): clients all in
 * one /48 would be one network holding a tenth of the approval slots, not thousands far under budget.
 */
export function clientAddress(): string {
  const base = Math.floor((Date.now() - startedAt) / 1000) * CLIENT_CHURN_PER_SECOND;
  const i = base + Math.floor(Math.random() * CLIENT_POOL);
  if (i % 2 === 0) return `10.${(i >>> 16) & 255}.${(i >>> 8) & 255}.${i & 255}`;
  const host = Math.floor(Math.random() * 0xffff).toString(16);
  const site = (0xdb8 + ((i >>> 16) & 0xff)).toString(16);
  return `2001:${site}:${(i & 0xffff).toString(16)}::${host}`;
}

/** Requests by kind: answered as expected, or failed (with why). */
export class Tally {
  readonly ok = new Map<string, number>();
  readonly failed = new Map<string, number>();
  /** Ticks where a generator had every slot busy and skipped a start (the driver, not the service). */
  skipped = 0;
  succeed(kind: string): void {
    this.ok.set(kind, (this.ok.get(kind) ?? 0) + 1);
  }
  fail(kind: string, why: string): void {
    this.failed.set(`${kind} ${why}`, (this.failed.get(`${kind} ${why}`) ?? 0) + 1);
  }
  total(map: Map<string, number>): number {
    let sum = 0;
    for (const n of map.values()) sum += n;
    return sum;
  }
}

export interface RequestSpec {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: unknown;
  expect?: readonly number[];
}

export function createCaller(baseUrl: string, tally: Tally) {
  return async (kind: string, spec: RequestSpec): Promise<unknown> => {
    try {
      const response = await fetch(baseUrl + spec.path, {
        method: spec.method ?? 'GET',
        headers: {
          'x-forwarded-for': clientAddress(),
          ...(spec.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...spec.headers,
        },
        ...(spec.body === undefined ? {} : { body: JSON.stringify(spec.body) }),
      });
      const text = await response.text();
      if (!(spec.expect ?? [200]).includes(response.status)) {
        tally.fail(kind, `${response.status}${errorCode(text)}`);
        return undefined;
      }
      tally.succeed(kind);
      return text === '' ? null : JSON.parse(text);
    } catch (error) {
      tally.fail(kind, (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).name);
      return undefined;
    }
  };
}

export type Caller = ReturnType<typeof createCaller>;

/** The error code of an error body (` RPC_UNAVAILABLE`), so a failure says why; '' when it has none. */
function errorCode(body: string): string {
  try {
    const parsed = JSON.parse(body) as { code?: unknown; error?: { code?: unknown } };
    const code = parsed.error?.code ?? parsed.code;
    return typeof code === 'string' ? ` ${code}` : '';
  } catch {
    return '';
  }
}

/** Starts `task` rate times a second (spread over 100 ms ticks), at most maxInFlight at once. */
export function every(rate: number, maxInFlight: number, task: () => Promise<unknown>, tally: Tally) {
  let credit = 0;
  let inFlight = 0;
  const running = new Set<Promise<unknown>>();
  const timer = setInterval(() => {
    credit += rate / 10;
    while (credit >= 1) {
      credit -= 1;
      if (inFlight >= maxInFlight) {
        tally.skipped += 1;
        continue;
      }
      inFlight += 1;
      const run = task().finally(() => {
        inFlight -= 1;
        running.delete(run);
      });
      running.add(run);
    }
  }, 100);
  return {
    async stop(): Promise<void> {
      clearInterval(timer);
      await Promise.allSettled([...running]);
    },
  };
}

export type Behaviour = 'fast' | 'slow' | 'failing' | 'flaky';

/** A webhook receiver on 127.0.0.1: per path, the ids it answered 2xx (what the service may count delivered). */
export interface Receiver {
  readonly url: string;
  readonly delivered: Map<string, Set<string>>;
  readonly requests: { count: number };
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const delivered = new Map<string, Set<string>>();
  const seen = new Set<string>();
  const requests = { count: 0 };
  const sockets = new Set<Socket>();
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      requests.count += 1;
      const [, , tag = '', behaviour = 'fast'] = (req.url ?? '').split('/');
      const id = String(req.headers['webhook-id'] ?? '');
      const ok = () => {
        res.on('finish', () => {
          const ids = delivered.get(tag) ?? new Set<string>();
          delivered.set(tag, ids);
          ids.add(id);
        });
        res.writeHead(200).end('ok');
      };
      const first = !seen.has(id);
      seen.add(id);
      const roll = Math.random();
      if (behaviour === 'failing' && first) res.writeHead(500).end('not yet');
      else if (behaviour === 'slow') setTimeout(ok, 200 + Math.random() * 1_300);
      else if (behaviour === 'flaky' && roll < 0.05) setTimeout(() => req.socket.destroy(), 3_000);
      else if (behaviour === 'flaky' && roll < 0.2) res.writeHead(503).end('busy');
      else ok();
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    delivered,
    requests,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** Live-feed streams: `count` loops, each holding a stream open 2–15 s, then dropping it and reconnecting. */
export function streamLoops(baseUrl: string, vaults: readonly Address[], count: number, tally: Tally) {
  let running = true;
  const loops: Promise<void>[] = [];
  const loop = async () => {
    while (running) {
      const controller = new AbortController();
      const holdMs = 2_000 + Math.random() * 13_000;
      const timer = setTimeout(() => controller.abort(), holdMs);
      const vault = Math.random() < 0.5 ? `?vault=${vaults[Math.floor(Math.random() * vaults.length)]}` : '';
      try {
        const response = await fetch(`${baseUrl}/api/events/stream${vault}`, {
          headers: { 'x-forwarded-for': clientAddress(), accept: 'text/event-stream' },
          signal: controller.signal,
        });
        if (response.status !== 200) {
          tally.fail('stream', String(response.status));
          await response.text();
        } else {
          tally.succeed('stream');
          for await (const _chunk of response.body ?? []) if (!running) break;
        }
      } catch (error) {
        if ((error as Error).name !== 'AbortError') tally.fail('stream', (error as Error).name);
      } finally {
        clearTimeout(timer);
        controller.abort();
      }
    }
  };
  for (let i = 0; i < count; i++) loops.push(loop());
  return {
    async stop(): Promise<void> {
      running = false;
      await Promise.allSettled(loops);
    },
  };
}

/** RATE program transfers a second round-robin over `vaults`; counts them per vault. */
export function transactionLoad(fake: FakeValidator, vaults: readonly Address[], rate: number, tally: Tally) {
  const sent = new Map<string, number>();
  let next = 0;
  const generator = every(
    rate,
    8,
    async () => {
      const vault = vaults[next++ % vaults.length]!;
      try {
        await fake.execute(vault, { amount: 1_000 });
        sent.set(vault, (sent.get(vault) ?? 0) + 1);
        tally.succeed('transaction');
      } catch (error) {
        tally.fail('transaction', (error as Error).message.slice(0, 60));
      }
    },
    tally,
  );
  return { sent, stop: () => generator.stop() };
}
