// Property-based hostile input against every registered route: never a 5xx, always the error envelope
// for 4xx, security headers on every response, and a refused request writes nothing.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { sql } from 'drizzle-orm';
import fc from 'fast-check';
import type { FastifyInstance, HTTPMethods, InjectOptions } from 'fastify';
import { createTestWallet, type TestWallet } from '../../dev/support/wallet.js';
import type { FakeValidator } from '../../dev/validator/index.js';
import { API_SECURITY_HEADERS } from '../../src/http/plugins/security.js';
import { createTestCache } from '../support/app.js';
import { createOverride, createTransaction, createVault, randomAddress } from '../support/factories.js';
import {
  bodyBytes,
  EDGE_DATES,
  hostileBody,
  hostileHeaders,
  hostileText,
  type KnownValues,
  listRoutes,
  POLLUTION_MARKER,
  plausibleParam,
  type RouteTemplate,
  urlPart,
} from '../support/hostile-requests.js';
import { useTestApps } from '../support/test-apps.js';
import { waitFor } from '../support/wait.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 5_000);
/** Cases of the stranger's phase: a wallet that owns nothing, signing every request. */
const STRANGER_RUNS = Math.max(200, Math.round(RUNS / 5));
const METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
const MAX_READ_BYTES = 4 * 1024 * 1024;

// The file's database and validator, set up once: every case runs against the same rows.
const world = useTestApps({ chain: true, emptyEachTest: false });
let validator: FakeValidator;
let app: FastifyInstance;
let wallet: TestWallet;
/** Signs well but owns nothing here. */
let stranger: TestWallet;
/** A digest of everything that is not the stranger's own (its subscriptions, keys and challenges). */
let othersFingerprint: () => Promise<string>;
let known: KnownValues;
/** Row counts of every table (as JSON). */
let countRows: () => Promise<string>;

before(async () => {
  wallet = createTestWallet();
  stranger = createTestWallet();
  const cache = createTestCache();
  await waitFor(() => cache.ping());
  const created = await world.startForFile({ cache, env: { RATE_LIMIT_ENABLED: 'false', ROLES: 'api' } });
  validator = world.chain;
  app = created.app;
  // As if listening: /readyz is then 200, and a 5xx from it would be a fault like any other.
  created.deps.roleStatus.api.accepting = true;

  // A vault the fuzzing wallet owns, on chain and in the database, with a blocked attempt and its override.
  const onChain = await validator.createVault({
    authority: wallet.address as Address,
    dailyLimit: 1_000_000_000n,
  });
  const db = world.storage.db;
  const vault = await createVault(db, {
    address: onChain.vault,
    authority: wallet.address,
    agentSigner: onChain.agentSigner,
    vaultNonce: onChain.nonce,
  });
  const override = await createOverride(db, { vault, nonce: 0n });
  const blocked = await createTransaction(db, { vault, status: 'blocked', override });
  await createTransaction(db, { vault, status: 'executed' });
  known = {
    addresses: [wallet.address, vault.address, vault.depositAddress, override.destination, randomAddress()],
    ids: [vault.id, override.id, blocked.id, blocked.signature!],
    numbers: ['0', '1', '2', '20', '100'],
  };

  // auth_claims is the replay guard's ledger (used while Redis does not answer, e.g. a command timing
  // out under load): a signature is used up before the body is validated, as it is in Redis. The audit
  // trail records refused writes by design (docs/AUDIT.md): it is the one table a refusal adds to.
  const tables = await world.storage.rows<{ name: string }>(
    sql`select tablename as name from pg_tables where schemaname = 'public' and tablename not in ('auth_claims', 'audit_entries') order by tablename`,
  );
  const counts = sql.raw(
    `select ${tables.map((t) => `(select count(*) from "${t.name}")::int as "${t.name}"`).join(', ')}`,
  );
  // The next transaction id moves only when something wrote: a cheap check before counting every table.
  const nextXid = sql`select pg_snapshot_xmax(pg_current_snapshot())::text as xid`;
  let lastXid = '';
  let lastCounts = '';
  // Usage counters (a Blink's views and uses) move on anyone's request by design; rows the stranger
  // owns (its subscriptions and what hangs off them, its API keys, its sign-in challenges) are its own.
  const mine = `'${stranger.address}'`;
  const strangerWebhooks = `(select id from webhooks where owner = ${mine})`;
  const ownRows: Record<string, string> = {
    webhooks: `owner <> ${mine}`,
    api_keys: `owner <> ${mine}`,
    action_nonces: `account <> ${mine}`,
    webhook_confirmations: `webhook_id is null or webhook_id not in ${strangerWebhooks}`,
    webhook_deliveries: `webhook_id not in ${strangerWebhooks}`,
    webhook_attempts: `delivery_id not in (select id from webhook_deliveries where webhook_id in ${strangerWebhooks})`,
  };
  const digestOf = (table: string) => {
    const row = table === 'blinks' ? `(t.id, t.override_id, t.url, t.created_at)::text` : 't::text';
    const where = ownRows[table] === undefined ? '' : ` where ${ownRows[table]}`;
    return `(select md5(coalesce(string_agg(${row}, '|' order by ${row}), '')) from "${table}" t${where}) as "${table}"`;
  };
  const digests = sql.raw(`select ${tables.map((t) => digestOf(t.name)).join(', ')}`);
  othersFingerprint = async () => JSON.stringify((await world.storage.rows(digests))[0]);
  countRows = async () => {
    const [{ xid }] = (await world.storage.rows<{ xid: string }>(nextXid)) as [{ xid: string }];
    if (xid !== lastXid) {
      lastCounts = JSON.stringify((await world.storage.rows(counts))[0]);
      lastXid = xid;
    }
    return lastCounts;
  };
});

interface Outcome {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: Buffer;
}

/** Sends one request and reads at most a few MiB; an event stream is cut after its headers. */
async function send(options: InjectOptions): Promise<Outcome> {
  const response = await app.inject({ ...options, payloadAsStream: true });
  const stream = response.stream();
  const chunks: Buffer[] = [];
  let size = 0;
  if (!String(response.headers['content-type']).startsWith('text/event-stream')) {
    for await (const chunk of stream) {
      chunks.push(chunk as Buffer);
      size += (chunk as Buffer).length;
      if (size > MAX_READ_BYTES) break;
    }
  }
  stream.destroy();
  return { status: response.statusCode, headers: response.headers, body: Buffer.concat(chunks) };
}

function assertWellFormed(outcome: Outcome, method: string, label: string): void {
  assert.ok(outcome.status < 500, `${label} → ${outcome.status} ${outcome.body.toString().slice(0, 300)}`);
  for (const header of ['x-content-type-options', 'content-security-policy', 'strict-transport-security']) {
    assert.ok(outcome.headers[header] !== undefined, `${label}: no ${header}`);
  }
  assert.ok(outcome.headers['x-request-id'], `${label}: no x-request-id`);
  if (outcome.status < 400 || method === 'HEAD') return;
  // The owner pages (a vault, an approval, an owner's approvals) answer a missing one with the page itself (404, HTML), for people.
  const page =
    method === 'GET' && /^GET \/(vaults|overrides|owners)\/[^/?\s]/.test(label) && outcome.status === 404;
  if (page && String(outcome.headers['content-type']).startsWith('text/html')) return;
  assert.match(String(outcome.headers['content-type']), /^application\/json/, label);
  const body = JSON.parse(outcome.body.toString()) as Record<string, unknown>;
  assert.equal(typeof body.error, 'string', label);
  assert.equal(typeof body.code, 'string', label);
  // Invalid input names what is wrong, never only "Invalid input".
  assert.notEqual(body.error, 'Invalid input', label);
  assert.ok(
    typeof body.details === 'object' && body.details !== null && !Array.isArray(body.details),
    `${label}: details must be an object`,
  );
}

function requestArbitrary(routes: RouteTemplate[]) {
  const anyPath = fc.array(urlPart(hostileText(known)), { minLength: 1, maxLength: 4 }).map((parts) => ({
    path: `/${parts.join('/')}`,
    methods: METHODS,
    query: [],
    body: [],
  }));
  const route = fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom(...routes) },
    { weight: 1, arbitrary: anyPath },
  );
  return route.chain((template) =>
    fc.record({
      template: fc.constant(template),
      method: fc.oneof(
        { weight: 8, arbitrary: fc.constantFrom(...template.methods) },
        { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
      ),
      params: fc.tuple(
        ...[...template.path.matchAll(/:(\w+)/g)].map(([, name]) =>
          fc.oneof(urlPart(hostileText(known)), plausibleParam(name!, known)),
        ),
      ),
      tail: fc.array(urlPart(hostileText(known)), { maxLength: 3 }),
      query: fc.array(
        fc.tuple(
          urlPart(
            fc.oneof(
              fc.constantFrom(...template.query, 'page', 'limit', 'vault'),
              hostileText(known),
              fc.constantFrom(
                '__proto__',
                `__proto__[${POLLUTION_MARKER}]`,
                `constructor[prototype][${POLLUTION_MARKER}]`,
                'a[b][c]',
                '',
              ),
            ),
          ),
          urlPart(hostileText(known)),
        ),
        { maxLength: 5 },
      ),
      headers: hostileHeaders(known),
      auth: fc.constantFrom('signed', 'signed', 'garbage', 'none'),
      body: hostileBody(template.body, known),
    }),
  );
}

/** Percent-encodes any string, a lone surrogate too (encodeURIComponent throws on one): it becomes the
 * replacement character's bytes, as a client that sends it would. */
const encodeAny = (text: string): string => encodeURIComponent(text.replace(/[\uD800-\uDFFF]/gu, '\uFFFD'));

describe('hostile input', () => {
  test(`${RUNS} hostile requests across every route: no 5xx, envelopes, headers, no writes`, async () => {
    const routes = listRoutes(app);
    for (const expected of ['/api/health', '/api/vaults/:address', '/metrics', '/docs/*']) {
      assert.ok(
        routes.some((r) => r.path === expected),
        `route list misses ${expected}`,
      );
    }
    const hits = new Map<string, number>();
    let writes = 0;
    let baseline = await countRows();

    await fc.assert(
      fc.asyncProperty(requestArbitrary(routes), async (input) => {
        let param = 0;
        let path = input.template.path.replace(/:\w+/g, () => (input.params as string[])[param++]!);
        path = path.replace(/\*$/, input.tail.join('/'));
        const query = input.query.map(([k, v]) => `${k}=${v}`).join('&');
        const url = query === '' ? path : `${path}?${query}`;
        const payload = bodyBytes(input.body);
        const headers: Record<string, string> = { ...input.headers };
        // Bound to this very request, so hostile bodies and queries get past authentication.
        const request = { method: input.method, path: url, body: payload };
        if (input.auth === 'signed') Object.assign(headers, wallet.authHeaders({ request }));
        if (input.auth === 'none') {
          for (const name of ['x-wallet-address', 'x-signature', 'x-message']) delete headers[name];
        }
        const label = `${input.method} ${url.slice(0, 200)} [${input.body.kind}]`;
        hits.set(input.template.path, (hits.get(input.template.path) ?? 0) + 1);

        const outcome = await send({
          // light-my-request 6.6 (pinned for Node 20) types fewer methods than Fastify routes.
          method: input.method as InjectOptions['method'],
          url,
          headers,
          ...(payload === undefined ? {} : { payload }),
        });
        assertWellFormed(outcome, input.method, label);
        assert.equal(
          (Object.prototype as Record<string, unknown>)[POLLUTION_MARKER],
          undefined,
          `${label} polluted`,
        );
        const rows = await countRows();
        if (outcome.status >= 300) assert.equal(rows, baseline, `${label} → ${outcome.status} wrote rows`);
        else if (rows !== baseline) writes += 1;
        baseline = rows;
      }),
      { numRuns: RUNS, ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}) },
    );

    for (const route of routes) {
      assert.ok(
        (hits.get(route.path) ?? 0) >= Math.min(20, RUNS / (routes.length * 4)),
        `${route.path} rarely hit`,
      );
    }
    process.stdout.write(
      `# hostile input: ${RUNS} cases, ${routes.length} routes, ${writes} accepted writes\n`,
    );
  });

  test('a stranger signing every request changes nothing of anyone else', async () => {
    const routes = listRoutes(app);
    const fingerprint = await othersFingerprint();
    let lastXid = '';
    const xid = async () =>
      (
        await world.storage.rows<{ xid: string }>(
          sql`select pg_snapshot_xmax(pg_current_snapshot())::text as xid`,
        )
      )[0]!.xid;
    let ownWrites = 0;
    await fc.assert(
      fc.asyncProperty(requestArbitrary(routes), async (input) => {
        let param = 0;
        let path = input.template.path.replace(/:\w+/g, () => (input.params as string[])[param++]!);
        path = path.replace(/\*$/, input.tail.join('/'));
        const query = input.query.map(([k, v]) => `${k}=${v}`).join('&');
        const url = query === '' ? path : `${path}?${query}`;
        const payload = bodyBytes(input.body);
        const label = `${input.method} ${url.slice(0, 200)} [${input.body.kind}]`;
        const outcome = await send({
          method: input.method as InjectOptions['method'],
          url,
          headers: {
            ...input.headers,
            ...stranger.authHeaders({ request: { method: input.method, path: url, body: payload } }),
          },
          ...(payload === undefined ? {} : { payload }),
        });
        assertWellFormed(outcome, input.method, label);
        const now = await xid();
        if (now === lastXid) return;
        lastXid = now;
        const after = await othersFingerprint();
        assert.equal(after, fingerprint, `${label} → ${outcome.status} changed someone else's rows`);
        ownWrites += 1;
      }),
      { numRuns: STRANGER_RUNS, ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}) },
    );
    process.stdout.write(
      `# hostile input, stranger: ${STRANGER_RUNS} signed cases, 0 changes to others' rows (${ownWrites} moved the database, each only on the stranger's own rows)\n`,
    );
  });

  test('MCP tool calls and the approvals long-poll with hostile arguments, Host headers and waitMs: never a 5xx', async () => {
    const tools = ['get_budget', 'check_transfer', 'list_transactions', 'get_approval', 'wait_for_approval'];
    const argument = fc.oneof(
      hostileText(known),
      fc.constantFrom('..', '.', '/', '?', '#', '%', '%2e%2e', `${known.addresses[1]}/..`, '', ...known.ids),
      fc.constantFrom(...known.addresses, ...known.numbers),
      fc.integer(),
      fc.constant(null),
    );
    const host = fc.oneof(
      fc.constant(undefined),
      fc.constantFrom('a b', 'xn--', 'x/y', '[::1', 'localhost:99999', 'xn--nxasmq6b.example'),
    );
    const call = fc.record({
      name: fc.constantFrom(...tools),
      args: fc.dictionary(
        fc.constantFrom('vault', 'signature', 'destination', 'amount', 'agent', 'limit', 'timeoutSeconds'),
        argument,
      ),
      host,
      waitMs: fc.oneof(
        fc.constantFrom('0', '1', '-1', '50000', '50001', '1e3', 'NaN', ''),
        hostileText(known),
      ),
      signature: fc.oneof(fc.constantFrom(...known.ids), hostileText(known)),
    });
    await fc.assert(
      fc.asyncProperty(call, async ({ name, args, host, waitMs, signature }) => {
        // A wait is at most a second here: the property is the answer's shape, not the wait.
        if (typeof args.timeoutSeconds === 'number') args.timeoutSeconds = 1;
        const headers = {
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          ...(host === undefined ? {} : { host }),
        };
        const payload = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } };
        const label = `POST /mcp ${name} ${JSON.stringify(args).slice(0, 200)} host=${host}`;
        assertWellFormed(await send({ method: 'POST', url: '/mcp', headers, payload }), 'POST', label);
        const wait = Number(waitMs) > 1000 ? '1000' : waitMs;
        const url = `/api/vaults/${known.addresses[1]}/approvals/${encodeAny(signature)}?waitMs=${encodeAny(wait)}`;
        const poll = await send({ method: 'GET', url, headers: host === undefined ? {} : { host } });
        assertWellFormed(poll, 'GET', `GET ${url} host=${host}`);
      }),
      {
        numRuns: Math.max(100, Math.round(RUNS / 20)),
        ...(process.env.FUZZ_SEED ? { seed: Number(process.env.FUZZ_SEED) } : {}),
      },
    );
  });

  test('analytics dates up to and past year 9999: 200 or 400 VALIDATION_ERROR, never a 5xx', async () => {
    const vault = known.addresses[1]!;
    const queries: string[] = [];
    for (const date of EDGE_DATES) {
      const value = encodeURIComponent(date);
      for (const groupBy of ['day', 'week', 'month']) {
        queries.push(`endDate=${value}&groupBy=${groupBy}`, `startDate=${value}&groupBy=${groupBy}`);
        queries.push(`startDate=${value}&endDate=${value}&groupBy=${groupBy}&vault=${vault}`);
      }
    }
    for (const query of queries) {
      const outcome = await send({ method: 'GET', url: `/api/analytics?${query}` });
      assertWellFormed(outcome, 'GET', query);
      if (outcome.status !== 200) {
        assert.equal(outcome.status, 400, query);
        assert.equal(JSON.parse(outcome.body.toString()).code, 'VALIDATION_ERROR', query);
      }
    }
    const refused = await send({ method: 'GET', url: '/api/analytics?endDate=9999-12-31' });
    assert.equal(refused.status, 400);
    const accepted = await send({
      method: 'GET',
      url: '/api/analytics?startDate=9999-12-01&endDate=9999-12-30',
    });
    assert.equal(accepted.status, 200, accepted.body.toString());
  });

  test('a URL the router refuses gets the envelope and the same security headers as any other error', async () => {
    const refused = await send({ method: 'GET', url: '/api/vaults/%zz' });
    const notFound = await send({ method: 'GET', url: `/api/${randomBytes(4).toString('hex')}` });
    assert.equal(refused.status, 400);
    assert.equal(JSON.parse(refused.body.toString()).code, 'VALIDATION_ERROR');
    for (const [name, value] of Object.entries(API_SECURITY_HEADERS)) {
      assert.equal(notFound.headers[name], value, `a 404 carries ${name} as API_SECURITY_HEADERS says`);
      assert.equal(refused.headers[name], value, name);
    }
    const long = await send({ method: 'GET', url: `/api/vaults/${'1'.repeat(300)}` });
    assert.equal(long.status, 400);
    assert.equal(JSON.parse(long.body.toString()).details.issues[0].path, 'url');
  });
});
