// The live feed loses no event to timing: an event committed while a stream starts, and (on PostgreSQL)
// ids committed out of order by concurrent transactions.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { createTestWallet } from '../../dev/support/wallet.js';
import { createLiveFeed, FEED_WRITE_LOCK_KEY } from '../../src/domain/live-feed/live-feed.js';
import type { Storage } from '../../src/storage/database.js';
import { chainEvents } from '../../src/storage/schema/index.js';
import { openEventStream } from '../support/event-stream.js';
import { useTestApps } from '../support/test-apps.js';
import { waitFor } from '../support/wait.js';

const VAULT = createTestWallet().address;
const onPostgres = /^postgres(ql)?:/.test(process.env.DATABASE_URL ?? '');
const dialect = new PgDialect();
const textOf = (query: SQL) => dialect.sqlToQuery(query).sql;
/** The feed's first read (the newest id) and its polls after an id. */
const isFirstRead = (text: string) => text.includes('max(id)');
/** The poller's page read: the program events and alerts after an id. */
const isPoll = (text: string) => /\) as f where id > \$\d+ order by id/.test(text);
/** The route's backlog read (listSince). */
const isBacklog = (text: string) => text.includes('vault_address = ');

// The file's database, emptied before each test; the apps are closed after it.
const db = useTestApps();
let baseUrl: string;
let slot = 1_000;

/** The storage with `hook` around every query (the hook runs the query itself). */
function hooked(
  inner: Storage,
  hook: (query: SQL, run: () => Promise<unknown[]>) => Promise<unknown[]>,
): Storage {
  return {
    ...inner,
    rows: (<T>(query: SQL) => hook(query, () => inner.rows(query)) as Promise<T[]>) as Storage['rows'],
  };
}

async function start(storage: Storage): Promise<void> {
  // The app reads through `storage` (the file's, or it hooked).
  ({ url: baseUrl } = await db.listen({ env: { RATE_LIMIT_ENABLED: 'false' }, overrides: { storage } }));
}

async function ingest(): Promise<number> {
  slot += 1;
  const [row] = await db.storage.db
    .insert(chainEvents)
    .values({
      signature: `race${slot}`,
      eventIndex: 0,
      slot,
      name: 'VaultPaused',
      vaultAddress: VAULT,
      data: {},
    })
    .returning({ id: chainEvents.id });
  return row!.id;
}

/** Opens this app's stream and collects its frames. */
const openStream = (headers: Record<string, string> = {}) =>
  openEventStream(`${baseUrl}/api/events/stream`, headers);

describe('live feed races', () => {
  test('an event committed between the backlog read and the first poll is still sent', async () => {
    const earlier = [await ingest(), await ingest()];
    let armed = true;
    let backlog: Promise<unknown> | null = null;
    let injected = 0;
    await start(
      hooked(db.storage, async (query, run) => {
        const text = textOf(query);
        if (armed && isBacklog(text)) {
          backlog = run();
          return backlog as Promise<unknown[]>;
        }
        if (armed && isFirstRead(text)) {
          armed = false;
          // Let the route go on to its backlog read if it reads it now, then commit an event after it.
          await new Promise(setImmediate);
          if (backlog !== null) await backlog;
          injected = await ingest();
        }
        return run();
      }),
    );
    const stream = openStream({ 'last-event-id': String(earlier[0]) });
    await stream.ready;
    const later = await ingest();
    await waitFor(() => stream.ids.includes(later), { message: 'the later event' });
    assert.ok(injected > 0);
    assert.deepEqual(stream.ids, [earlier[1], injected, later]);
    stream.close();
  });

  test('concurrent first subscribers share one start: one boundary, then the same events', async () => {
    const before = await ingest();
    const feed = createLiveFeed({ storage: db.storage, pollIntervalMs: 20 });
    const got: [number[], number[], number[]] = [[], [], []];
    try {
      const one = feed.subscribe((event) => got[0].push(event.id));
      const two = feed.subscribe((event) => got[1].push(event.id));
      const [a, b] = await Promise.all([one.boundary, two.boundary]);
      assert.equal(a, before);
      assert.equal(b, before);
      const three = feed.subscribe((event) => got[2].push(event.id));
      assert.equal(await three.boundary, before);
      const next = await ingest();
      await waitFor(() => got.every((ids) => ids.length > 0), { message: 'the next event everywhere' });
      assert.deepEqual(got, [[next], [next], [next]]);
    } finally {
      feed.close();
    }
  });

  test('a lower id committed after a higher one is still sent, in id order (PostgreSQL only: needs two connections)', {
    skip: !onPostgres && 'PGlite has one connection: its transactions never overlap',
  }, async () => {
    let polls = 0;
    await start(
      hooked(db.storage, async (query, run) => {
        const rows = await run();
        if (isPoll(textOf(query))) polls += 1;
        return rows;
      }),
    );
    const stream = openStream();
    await stream.ready;
    const first = await db.storage.pool!.connect();
    const second = await db.storage.pool!.connect();
    const insert = `insert into chain_events (signature, event_index, slot, name, vault_address, data)
        values ($1, 0, $2, 'VaultPaused', $3, '{}') returning id`;
    // Each takes the feed's write lock before drawing ids, as the ingestion code does; the one that
    // draws the higher id is also the older transaction (its xid first), which defeats xid checks.
    const lock = `select pg_advisory_xact_lock_shared(${FEED_WRITE_LOCK_KEY})`;
    try {
      await second.query('begin');
      await second.query(lock);
      await second.query('select pg_current_xact_id()');
      await first.query('begin');
      await first.query(lock);
      const low = Number((await first.query(insert, ['low', 1, VAULT])).rows[0].id);
      const high = Number((await second.query(insert, ['high', 2, VAULT])).rows[0].id);
      assert.ok(low < high);
      await second.query('commit');
      // Two polls completed after the higher id committed: the second one started after it.
      const seen = polls;
      await waitFor(() => polls >= seen + 2, { message: 'two polls' });
      assert.deepEqual(stream.ids, [], 'nothing is sent past an id still in flight');
      await first.query('commit');
      await waitFor(() => stream.ids.length >= 2, { message: 'both events' });
      assert.deepEqual(stream.ids, [low, high]);
    } finally {
      await first.query('rollback').catch(() => {});
      await second.query('rollback').catch(() => {});
      first.release();
      second.release();
      stream.close();
    }
  });
});
