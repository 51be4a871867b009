// Seeds the read benchmark's PostgreSQL database: 1 000 vaults, 1 000 000 transactions (about 2 %
// blocked, half of those with an override, 1 % pending), with generate_series so it takes seconds.
// The seeded database is kept and reused while the schema and this seed are unchanged.
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { getBase58Decoder } from '@solana/kit';
import pg from 'pg';
import { rebuildVaultStats } from '../../src/domain/vaults/vault-stats.js';
import { createDatabase, migrationsFolder } from '../../src/storage/database.js';

const SEED_VERSION = 'read-seed-1';
export const VAULT_COUNT = 1_000;
export const TRANSACTION_COUNT = 1_000_000;
const DESTINATION_COUNT = 5_000;

const base58 = getBase58Decoder();
const randomAddress = () => base58.decode(randomBytes(32));

async function withClient<T>(url: string, run: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

function fingerprint(): string {
  const migration = readFileSync(resolve(migrationsFolder(), '0000_init.sql'), 'utf8');
  return createHash('sha256').update(migration).update(SEED_VERSION).digest('hex');
}

/** Returns the URL of a seeded database, seeding it first when missing or stale. */
export async function ensureSeededDatabase(
  adminUrl: string,
  name: string,
  options: { reseed?: boolean; log?: (line: string) => void } = {},
): Promise<string> {
  const log = options.log ?? (() => {});
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const databaseUrl = url.toString();
  const expected = fingerprint();
  const exists = await withClient(adminUrl, async (c) => {
    const found = await c.query('select 1 from pg_database where datname = $1', [name]);
    return found.rowCount === 1;
  });
  if (exists && !options.reseed) {
    const current = await withClient(databaseUrl, async (c) => {
      const table = await c.query("select to_regclass('public.bench_seed') as t");
      if (table.rows[0]?.t === null) return null;
      return ((await c.query('select fingerprint from bench_seed')).rows[0]?.fingerprint as string) ?? null;
    });
    if (current === expected) {
      log(`reusing seeded database ${name}`);
      return databaseUrl;
    }
  }
  await withClient(adminUrl, async (c) => {
    await c.query(`drop database if exists ${name} with (force)`);
    await c.query(`create database ${name}`);
  });
  const started = Date.now();
  const storage = await createDatabase({ kind: 'postgres', url: databaseUrl });
  try {
    await withClient(databaseUrl, (c) => seed(c));
    await rebuildVaultStats(storage.db);
  } finally {
    await storage.close();
  }
  await withClient(databaseUrl, async (c) => {
    await c.query('vacuum analyze');
    await c.query('create table bench_seed (fingerprint text not null)');
    await c.query('insert into bench_seed values ($1)', [expected]);
  });
  log(`seeded ${name} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return databaseUrl;
}

async function seed(client: pg.Client): Promise<void> {
  const vaults = Array.from({ length: VAULT_COUNT }, () => [
    randomAddress(),
    randomAddress(),
    randomAddress(),
    randomAddress(),
  ]);
  await client.query(
    `insert into vaults (address, authority, agent_signer, deposit_address, daily_limit, name, tier,
                         last_reset, created_at, updated_at)
     select a.address, a.authority, a.agent, a.deposit, 50000000000, 'Bench vault ' || a.n, (a.n % 3)::smallint,
            timestamptz '2026-11-21 00:00:00Z', timestamptz '2026-01-01 00:00:00Z' + a.n * interval '1 hour', now()
     from unnest($1::text[], $2::text[], $3::text[], $4::text[]) with ordinality as a(address, authority, agent, deposit, n)`,
    [0, 1, 2, 3].map((i) => vaults.map((v) => v[i])),
  );
  // Bulk load without the secondary indexes, then rebuild them once.
  const indexes = (
    await client.query<{ name: string; definition: string }>(
      `select indexname as name, indexdef as definition from pg_indexes
       where tablename = 'transactions' and indexname <> 'transactions_pkey'`,
    )
  ).rows;
  for (const index of indexes) await client.query(`drop index ${index.name}`);
  const destinations = Array.from({ length: DESTINATION_COUNT }, randomAddress);
  await client.query(
    `with v as (select array_agg(id order by created_at) as ids from vaults)
     insert into transactions (vault_id, signature, event_index, destination, amount, fee_collected, status,
                               block_reason, slot, timestamp)
     select v.ids[1 + g % ${VAULT_COUNT}],
            case when s.status = 'pending' then null else 'bench' || lpad(g::text, 12, '0') end,
            case when s.status = 'pending' then null else 0 end,
            ($1::text[])[1 + (g::bigint * 7919) % ${DESTINATION_COUNT}],
            s.amount,
            case when s.status = 'executed' then s.amount / 1000 end,
            s.status,
            case when s.status = 'blocked' then (array['not_whitelisted', 'exceeded_daily_limit', 'insufficient_funds'])[1 + g % 3] end,
            100000 + g,
            timestamptz '2026-01-01 00:00:00Z' + g * interval '15 seconds'
     from generate_series(1, ${TRANSACTION_COUNT}) as g
     cross join v
     cross join lateral (
       select case when g % 50 = 0 then 'blocked' when g % 97 = 0 then 'pending' else 'executed' end as status,
              ((g::bigint * 2654435761) % 5000000000 + 1000)::numeric as amount
     ) s`,
    [destinations],
  );
  for (const index of indexes) await client.query(index.definition);
  // Half of the blocked attempts asked for an override (they show a blinkUrl).
  await client.query(
    `with blocked as (
       select id, vault_id, destination, amount, block_reason, timestamp,
              row_number() over (partition by vault_id order by timestamp) as nonce
       from transactions where status = 'blocked' and slot % 100 = 0
     ), created as (
       insert into overrides (vault_id, nonce, destination, amount, reason, status, expires_at, created_at)
       select vault_id, nonce, destination, amount, block_reason, 'pending', timestamp + interval '1 hour', timestamp
       from blocked
       returning id, vault_id, created_at
     )
     update transactions t set override_id = c.id
     from created c
     where t.vault_id = c.vault_id and t.timestamp = c.created_at and t.status = 'blocked'`,
  );
}
