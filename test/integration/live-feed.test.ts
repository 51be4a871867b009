import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ALERT_EVENTS, FEED_EVENTS, isFeedEventName, WEBHOOK_EVENTS } from '@vaultkeeper/webhooks';
import { createTestWallet } from '../../dev/support/wallet.js';
import { EVENT_NAMES } from '../../src/chain/program.js';
import {
  MAPPED_PROGRAM_EVENTS,
  toAlertFeedName,
  toFeedEventName,
} from '../../src/domain/live-feed/feed-event-names.js';
import { chainEvents } from '../../src/storage/schema/index.js';
import { openEventStream } from '../support/event-stream.js';
import { useTestApps } from '../support/test-apps.js';
import { waitFor } from '../support/wait.js';

const VAULT_A = createTestWallet().address;
const VAULT_B = createTestWallet().address;

let baseUrl: string;
let slot = 100;

const world = useTestApps({
  fileApp: {
    setUp: async (app) => {
      baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
    },
  },
  emptyEachTest: false,
});

async function ingest(vault: string, name = 'VaultPaused'): Promise<number> {
  slot += 1;
  const [row] = await world.storage.db
    .insert(chainEvents)
    .values({
      signature: `sig${slot}`,
      eventIndex: 0,
      slot,
      blockTime: new Date(),
      name,
      vaultAddress: vault,
      data: { vault },
    })
    .returning({ id: chainEvents.id });
  return row!.id;
}

/** Reads an SSE response of this app, collecting `id:` + `data:` frames. */
const openStream = (path: string, headers: Record<string, string> = {}) =>
  openEventStream(`${baseUrl}${path}`, headers);

describe('feed event names', () => {
  test('every event the program emits has a name, and the names webhooks share are spelled alike', () => {
    assert.deepEqual([...MAPPED_PROGRAM_EVENTS].sort(), [...EVENT_NAMES].sort());
    const used = new Set([...EVENT_NAMES, 'Unknown', 'NotAnEvent'].map(toFeedEventName));
    // The alerts and dropped transactions are the feed's other names: the service derives them.
    const derived = [...ALERT_EVENTS, 'transaction.dropped'];
    assert.deepEqual([...used, ...derived].sort(), [...FEED_EVENTS].sort());
    for (const name of derived) assert.equal(toAlertFeedName(name), name);
    assert.equal(toAlertFeedName('VaultPaused'), 'program.unknown');
    const chainBorne = FEED_EVENTS.filter(
      (n) => !['treasury.initialized', 'fees.withdrawn', 'program.unknown'].includes(n),
    );
    for (const name of chainBorne) assert.ok((WEBHOOK_EVENTS as readonly string[]).includes(name), name);
    assert.equal(toFeedEventName('constructor'), 'program.unknown');
  });
});

describe('GET /api/events/stream', () => {
  test('streams events as they are ingested, with id lines', async () => {
    const stream = openStream('/api/events/stream');
    await stream.ready;
    const first = await ingest(VAULT_A, 'VaultPaused');
    const second = await ingest(VAULT_B, 'VaultResumed');
    await waitFor(() => stream.frames.length >= 2, { message: 'two frames' });
    assert.deepEqual(
      stream.frames.map((f) => [f.id, f.data.name, f.data.programEvent, f.data.vault]),
      [
        [first, 'vault.paused', 'VaultPaused', VAULT_A],
        [second, 'vault.resumed', 'VaultResumed', VAULT_B],
      ],
    );
    stream.close();
  });

  test('names events in the webhooks vocabulary; the program name stays beside it', async () => {
    const stream = openStream('/api/events/stream');
    await stream.ready;
    const pairs: [string, string][] = [
      ['TransactionExecuted', 'transaction.executed'],
      ['TransactionBlocked', 'transaction.blocked'],
      ['OverrideCreated', 'override.created'],
      ['OverrideApproved', 'override.approved'],
      ['VaultCreated', 'vault.created'],
      ['VaultInitialized', 'vault.created'],
      ['PolicyUpdated', 'policy.updated'],
      ['WhitelistUpdated', 'policy.updated'],
      ['AgentSignerUpdated', 'policy.updated'],
      ['FeeTreasuryInitialized', 'treasury.initialized'],
      ['FeesWithdrawn', 'fees.withdrawn'],
      ['Unknown', 'program.unknown'],
    ];
    for (const [programEvent] of pairs) await ingest(VAULT_A, programEvent);
    await waitFor(() => stream.frames.length >= pairs.length, { message: 'every event' });
    assert.deepEqual(
      stream.frames.map((f) => [f.data.programEvent, f.data.name]),
      pairs,
    );
    for (const frame of stream.frames) assert.ok(isFeedEventName(frame.data.name), frame.data.name);
    stream.close();
  });

  test('filters by vault', async () => {
    const stream = openStream(`/api/events/stream?vault=${VAULT_B}`);
    await stream.ready;
    await ingest(VAULT_A);
    const wanted = await ingest(VAULT_B);
    await ingest(VAULT_A);
    const last = await ingest(VAULT_B, 'PolicyUpdated');
    await waitFor(() => stream.frames.length >= 2);
    assert.deepEqual(
      stream.frames.map((f) => f.id),
      [wanted, last],
    );
    assert.ok(stream.frames.every((f) => f.data.vault === VAULT_B));
    stream.close();
  });

  test('resumes after Last-Event-ID without gaps or repeats', async () => {
    const ids = [await ingest(VAULT_A), await ingest(VAULT_A), await ingest(VAULT_A)];
    const stream = openStream('/api/events/stream', { 'last-event-id': String(ids[0]) });
    await stream.ready;
    const later = await ingest(VAULT_A);
    await waitFor(() => stream.frames.length >= 3);
    assert.deepEqual(
      stream.frames.map((f) => f.id),
      [ids[1], ids[2], later],
    );
    stream.close();
  });

  test('rejects a malformed vault filter', async () => {
    const res = await world.app.inject({ method: 'GET', url: '/api/events/stream?vault=not-an-address' });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().code, 'VALIDATION_ERROR');
  });
});
