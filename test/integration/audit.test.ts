// The audit trail: every authenticated write leaves exactly one entry (who, what, on what, from where,
// how it ended), refused ones too; owners read theirs newest first by cursor; nothing changes an entry;
// the retention job prunes old ones.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { beforeEach, describe, test } from 'node:test';
import { type Address, getBase58Decoder } from '@solana/kit';
import { asc, eq, sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { createTestWallet, type TestWallet } from '../../dev/support/wallet.js';
import { deleteOldAuditEntries } from '../../src/jobs/cache-cleanup.js';
import {
  type AuditEntryRow,
  auditEntries,
  overrides,
  type VaultRow,
  webhookDeliveries,
} from '../../src/storage/schema/index.js';
import { createOverride, createVault } from '../support/factories.js';
import { seedOwnedVault } from '../support/owned-vault.js';
import { useTestApps } from '../support/test-apps.js';

const apps = useTestApps({
  chain: true,
  env: { RATE_LIMIT_ENABLED: 'false', WEBHOOK_ALLOW_PRIVATE_URLS: 'true' },
  fileApp: true,
});
let owner: TestWallet;
let vault: VaultRow;
beforeEach(async () => {
  ({ owner, vault } = await seedOwnedVault(apps.db));
});

type Credentials = TestWallet | string | null;

/** A request as a wallet (headers bound to it), as an API key (a string), or with no credentials. */
async function call(
  method: string,
  url: string,
  who: Credentials,
  body?: Record<string, unknown>,
): Promise<LightMyRequestResponse> {
  const headers =
    who === null
      ? {}
      : typeof who === 'string'
        ? { authorization: `Bearer ${who}` }
        : who.authHeaders({ request: { method, path: url, ...(body === undefined ? {} : { body }) } });
  return apps.app.inject({
    method: method as 'GET',
    url,
    headers,
    ...(body === undefined ? {} : { payload: body }),
  });
}

const allEntries = () => apps.db.select().from(auditEntries).orderBy(asc(auditEntries.at));

interface Expected {
  actor: string;
  action: string;
  target: string;
  outcome: string;
  vault?: string | null;
}

/** Runs one request and checks that it left exactly one new entry, as expected. */
async function expectOneEntry(
  request: () => Promise<LightMyRequestResponse>,
  status: number,
  expected: Expected | ((response: LightMyRequestResponse) => Expected),
): Promise<LightMyRequestResponse> {
  const before = new Set((await allEntries()).map((e) => e.id));
  const response = await request();
  assert.equal(response.statusCode, status, response.body);
  const added = (await allEntries()).filter((e) => !before.has(e.id));
  assert.equal(added.length, 1, `one entry, got ${JSON.stringify(added)}`);
  const entry = added[0] as AuditEntryRow;
  const want = typeof expected === 'function' ? expected(response) : expected;
  const { vault: wantVault, ...rest } = want;
  assert.deepEqual(
    { actor: entry.actor, action: entry.action, target: entry.target, outcome: entry.outcome },
    rest,
  );
  if (wantVault !== undefined) assert.equal(entry.vault, wantVault);
  assert.equal(entry.client, '127.0.0.0/24');
  assert.equal(entry.requestId, response.headers['x-request-id']);
  return response;
}

async function createKey(wallet: TestWallet, extra: Record<string, unknown> = {}) {
  const body = { name: 'audited', ...extra };
  return expectOneEntry(
    () => call('POST', '/api/api-keys', wallet, body),
    201,
    (r) => ({
      actor: `wallet:${wallet.address}`,
      action: 'api_key.create',
      target: `api_key:${r.json().id}`,
      outcome: 'ok',
    }),
  );
}

describe('every write leaves exactly one entry', () => {
  test('vaults, alert settings and API keys: done through a wallet or a key, and refused', async () => {
    const created = (await createKey(owner)).json();
    const key = created.key as string;
    const asKey = `key:${created.id}`;
    const path = `/api/vaults/${vault.address}`;
    await expectOneEntry(() => call('PATCH', path, key, { name: 'Renamed' }), 200, {
      actor: asKey,
      action: 'vault.update',
      target: `vault:${vault.address}`,
      outcome: 'ok',
      vault: vault.address,
    });
    await expectOneEntry(() => call('PATCH', `/api/vaults/${vault.id}`, owner, { name: 'By id' }), 200, {
      actor: `wallet:${owner.address}`,
      action: 'vault.update',
      target: `vault:${vault.address}`,
      outcome: 'ok',
    });
    const theirs = await createVault(apps.db, { authority: createTestWallet().address });
    await expectOneEntry(() => call('PATCH', `/api/vaults/${theirs.address}`, key, { name: 'Hijack' }), 403, {
      actor: asKey,
      action: 'vault.update',
      target: `vault:${theirs.address}`,
      outcome: 'refused:FORBIDDEN',
      vault: theirs.address,
    });
    await expectOneEntry(() => call('PUT', `${path}/alerts`, owner, { budgetThresholds: [50, 90] }), 200, {
      actor: `wallet:${owner.address}`,
      action: 'alerts.update',
      target: `vault:${vault.address}`,
      outcome: 'ok',
    });
    const agentSigner = createTestWallet().address;
    await apps.chain.airdrop(owner.address as Address, 1_000_000_000n);
    await expectOneEntry(
      () => call('POST', '/api/vaults', owner, { name: 'New one', agentSigner, dailyLimit: 1_000_000 }),
      201,
      (r) => ({
        actor: `wallet:${owner.address}`,
        action: 'vault.create',
        target: `vault:${r.json().vault.address}`,
        outcome: 'ok',
        vault: r.json().vault.address,
      }),
    );
    const readOnly = (await createKey(owner, { scopes: ['read'] })).json();
    await expectOneEntry(() => call('PATCH', path, readOnly.key, { name: 'No' }), 403, {
      actor: `key:${readOnly.id}`,
      action: 'vault.update',
      target: `vault:${vault.address}`,
      outcome: 'refused:INSUFFICIENT_SCOPE',
    });
    await expectOneEntry(() => call('DELETE', `/api/api-keys/${readOnly.id}`, key), 204, {
      actor: asKey,
      action: 'api_key.delete',
      target: `api_key:${readOnly.id}`,
      outcome: 'ok',
    });
    await expectOneEntry(() => call('DELETE', `/api/api-keys/${readOnly.id}`, owner), 404, {
      actor: `wallet:${owner.address}`,
      action: 'api_key.delete',
      target: `api_key:${readOnly.id}`,
      outcome: 'refused:API_KEY_NOT_FOUND',
    });
  });

  test('webhooks: create, update, rotate, test, retry, recover, delete', async () => {
    const { key, id: keyId } = (await createKey(owner)).json();
    const actor = `key:${keyId}`;
    const hook = (
      await expectOneEntry(
        () =>
          call('POST', '/api/webhooks', key, {
            url: 'http://127.0.0.1:9/hook',
            events: ['transaction.blocked'],
            vault: vault.address,
          }),
        201,
        (r) => ({
          actor,
          action: 'webhook.create',
          target: `webhook:${r.json().id}`,
          outcome: 'ok',
          vault: vault.address,
        }),
      )
    ).json();
    const url = `/api/webhooks/${hook.id}`;
    const target = `webhook:${hook.id}`;
    const ok = (action: string) => ({ actor, action, target, outcome: 'ok', vault: vault.address });
    await expectOneEntry(
      () => call('PATCH', url, key, { events: ['transaction.executed'] }),
      200,
      ok('webhook.update'),
    );
    await expectOneEntry(() => call('POST', `${url}/rotate-secret`, key), 200, ok('webhook.rotate_secret'));
    const delivery = (
      await expectOneEntry(() => call('POST', `${url}/test`, key), 202, ok('webhook.test'))
    ).json();
    await expectOneEntry(() => call('POST', `${url}/deliveries/${delivery.id}/retry`, key), 202, {
      actor,
      action: 'webhook.retry',
      target: `delivery:${delivery.id}`,
      outcome: 'ok',
      vault: vault.address,
    });
    const since = new Date(Date.now() - 3_600_000).toISOString();
    await expectOneEntry(() => call('POST', `${url}/recover`, key, { since }), 202, ok('webhook.recover'));
    const stranger = createTestWallet();
    await expectOneEntry(() => call('DELETE', url, stranger), 403, {
      actor: `wallet:${stranger.address}`,
      action: 'webhook.delete',
      target,
      outcome: 'refused:FORBIDDEN',
      vault: vault.address,
    });
    await expectOneEntry(() => call('DELETE', url, key), 204, ok('webhook.delete'));
  });

  test('override decisions: an off-chain reject, and approval and rejection confirmations refused', async () => {
    const override = await createOverride(apps.db, { vault });
    const base = `/api/actions/${vault.address}/${override.nonce}`;
    const target = `override:${vault.address}/${override.nonce}`;
    await expectOneEntry(() => call('POST', `${base}/reject`, owner, { account: owner.address }), 200, {
      actor: `wallet:${owner.address}`,
      action: 'override.reject',
      target,
      outcome: 'ok',
      vault: vault.address,
    });
    const stranger = createTestWallet();
    const signature = getBase58Decoder().decode(randomBytes(64));
    await expectOneEntry(
      () => call('POST', `${base}/approve/confirm`, null, { account: stranger.address, signature }),
      403,
      (r) => ({
        actor: `wallet:${stranger.address}`,
        action: 'override.approve',
        target,
        outcome: `refused:${r.json().code}`,
      }),
    );
    const confirm = { account: stranger.address, signature: 'x', data: 'not signed', state: 'x' };
    const refused = await expectOneEntry(
      () => call('POST', `${base}/reject/confirm`, null, confirm),
      401,
      (r) => ({
        actor: `wallet:${stranger.address}`,
        action: 'override.reject',
        target,
        outcome: `refused:${r.json().code}`,
      }),
    );
    assert.equal(refused.json().code, 'UNAUTHORIZED');
  });

  test('a Blink rejection and a delivery retry commit with their entry: no entry, no write', async () => {
    const override = await createOverride(apps.db, { vault });
    const { key, id: keyId } = (await createKey(owner)).json();
    const hook = (
      await call('POST', '/api/webhooks', key, {
        url: 'http://127.0.0.1:9/hook',
        events: ['transaction.blocked'],
        vault: vault.address,
      })
    ).json();
    const delivery = (await call('POST', `/api/webhooks/${hook.id}/test`, key)).json();
    await apps.db
      .update(webhookDeliveries)
      .set({ status: 'failed', completedAt: new Date() })
      .where(eq(webhookDeliveries.id, delivery.id));
    // The database refuses these two entries: the act they record must not happen either.
    await apps.db.execute(sql`create function test_refuse_audit() returns trigger language plpgsql
      as $$ begin raise exception 'audit entry refused by the test'; end $$`);
    await apps.db.execute(sql`create trigger test_refuse_audit before insert on audit_entries for each row
      when (new.action in ('override.reject', 'webhook.retry')) execute function test_refuse_audit()`);
    try {
      const base = `/api/actions/${vault.address}/${override.nonce}`;
      const rejected = await call('POST', `${base}/reject`, owner, { account: owner.address });
      assert.equal(rejected.statusCode, 500, rejected.body);
      const [after] = await apps.db.select().from(overrides).where(eq(overrides.id, override.id));
      assert.equal(after?.status, 'pending', 'the rejection was undone with its entry');
      const retried = await call('POST', `/api/webhooks/${hook.id}/deliveries/${delivery.id}/retry`, key);
      assert.equal(retried.statusCode, 500, retried.body);
      const [row] = await apps.db
        .select()
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.id, delivery.id));
      assert.equal(row?.status, 'failed', 'the retry was undone with its entry');
    } finally {
      await apps.db.execute(sql`drop trigger test_refuse_audit on audit_entries`);
      await apps.db.execute(sql`drop function test_refuse_audit()`);
    }
    await expectOneEntry(
      () => call('POST', `/api/webhooks/${hook.id}/deliveries/${delivery.id}/retry`, key),
      202,
      {
        actor: `key:${keyId}`,
        action: 'webhook.retry',
        target: `delivery:${delivery.id}`,
        outcome: 'ok',
        vault: vault.address,
      },
    );
  });

  test('reads, and requests without credentials, leave nothing', async () => {
    await call('GET', `/api/vaults/${vault.address}/alerts`, owner);
    await call('PATCH', `/api/vaults/${vault.address}`, null, { name: 'x' });
    await call('POST', '/api/webhooks', null, {
      url: 'http://127.0.0.1:9/',
      events: ['transaction.blocked'],
    });
    const override = await createOverride(apps.db, { vault });
    // Without wallet headers a reject only answers a message to sign: not a write yet.
    await call('POST', `/api/actions/${vault.address}/${override.nonce}/reject`, null, {
      account: owner.address,
    });
    assert.deepEqual(await allEntries(), []);
  });
});

/** Entries written straight to the table, a minute apart, the newest last. */
async function seedEntries(n: number, fields: Partial<AuditEntryRow> = {}) {
  const start = Date.parse('2026-11-01T00:00:00.000Z');
  const rows = Array.from({ length: n }, (_, i) => ({
    at: new Date(start + i * 60_000),
    owner: owner.address,
    vault: vault.address,
    actor: `wallet:${owner.address}`,
    action: i % 2 === 0 ? 'vault.update' : 'webhook.create',
    target: `vault:${vault.address}`,
    requestId: `req-${i}`,
    client: '127.0.0.0/24',
    outcome: 'ok',
    ...fields,
  }));
  await apps.db.insert(auditEntries).values(rows);
}

describe('GET /api/audit', () => {
  test('newest first, a page at a time through `before`, filtered by action', async () => {
    await seedEntries(5);
    const pages: string[][] = [];
    let before: string | null = '';
    while (before !== null) {
      const query: string = before === '' ? '' : `&before=${before}`;
      const response = await call('GET', `/api/audit?limit=2${query}`, owner);
      assert.equal(response.statusCode, 200, response.body);
      const body = response.json();
      pages.push(body.entries.map((e: { requestId: string }) => e.requestId));
      before = body.pagination.next;
    }
    assert.deepEqual(pages, [['req-4', 'req-3'], ['req-2', 'req-1'], ['req-0']]);
    const filtered = (await call('GET', '/api/audit?action=webhook.create', owner)).json();
    assert.deepEqual(
      filtered.entries.map((e: { requestId: string }) => e.requestId),
      ['req-3', 'req-1'],
    );
    const first = filtered.entries[0];
    assert.deepEqual(Object.keys(first).sort(), [
      'action',
      'actor',
      'at',
      'client',
      'id',
      'outcome',
      'requestId',
      'target',
      'vault',
    ]);
    const bad = await call('GET', '/api/audit?before=bm90LWEtY3Vyc29y', owner);
    assert.equal(bad.statusCode, 400, bad.body);
  });

  test("owner only: another wallet's trail or vault is 403, no credentials 401; attempts on a vault reach its owner", async () => {
    await seedEntries(2);
    const stranger = createTestWallet();
    const refusals = [
      await call('GET', `/api/audit?owner=${owner.address}`, stranger),
      await call('GET', `/api/audit?vault=${vault.address}`, stranger),
    ];
    for (const response of refusals) assert.equal(response.statusCode, 403, response.body);
    assert.equal((await call('GET', '/api/audit', null)).statusCode, 401);
    const own = (await call('GET', '/api/audit', stranger)).json();
    assert.deepEqual(own.entries, []);
    // The stranger's refused attempt on the owner's vault is in the owner's trail.
    await call('PATCH', `/api/vaults/${vault.address}`, stranger, { name: 'Hijack' });
    const trail = (await call('GET', `/api/audit?vault=${vault.address}`, owner)).json();
    assert.equal(trail.entries[0].actor, `wallet:${stranger.address}`);
    assert.equal(trail.entries[0].outcome, 'refused:FORBIDDEN');
    assert.equal((await call('GET', '/api/audit', owner)).json().entries.length, 3);
  });

  test('append-only: no route changes or deletes an entry', async () => {
    await seedEntries(1);
    const [entry] = await allEntries();
    for (const method of ['PUT', 'PATCH', 'DELETE', 'POST']) {
      for (const url of ['/api/audit', `/api/audit/${entry!.id}`]) {
        const response = await call(method, url, owner, method === 'DELETE' ? undefined : { outcome: 'ok' });
        assert.ok([404, 405].includes(response.statusCode), `${method} ${url}: ${response.statusCode}`);
      }
    }
    const spec = (await apps.app.inject('/api/openapi.json')).json();
    const auditPaths = Object.entries(spec.paths as Record<string, object>).filter(([path]) =>
      path.startsWith('/api/audit'),
    );
    assert.deepEqual(
      auditPaths.map(([path, methods]) => [path, Object.keys(methods)]),
      [['/api/audit', ['get']]],
    );
    assert.deepEqual(await allEntries(), [entry]);
  });

  test('the retention job deletes entries older than AUDIT_RETENTION_DAYS and keeps the rest', async () => {
    await seedEntries(3);
    const now = new Date('2026-11-01T00:01:30.000Z');
    const deleted = await deleteOldAuditEntries(apps.db, now, 0);
    assert.equal(deleted, 2);
    assert.deepEqual(
      (await allEntries()).map((e) => e.requestId),
      ['req-2'],
    );
    assert.equal(await deleteOldAuditEntries(apps.db, now, 400), 0);
    assert.equal(apps.deps.config.auditRetentionDays, 400);
    const rows = await apps.storage.rows(sql`select count(*)::int as n from audit_entries`);
    assert.deepEqual(rows, [{ n: 1 }]);
  });
});
