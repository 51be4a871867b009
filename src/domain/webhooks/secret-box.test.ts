import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { asc } from 'drizzle-orm';
import { useTestApps } from '../../../test/support/test-apps.js';
import { webhooks } from '../../storage/schema/index.js';
import { createSecretBox, keyId, resealWebhookSecrets } from './secret-box.js';

const world = useTestApps();
const key1 = Buffer.alloc(32, 1);
const key2 = Buffer.alloc(32, 2);
const secret = 'whsec_dGhpcyBpcyBhIHRlc3Qgc2VjcmV0IG9mIDMyIGJ5dGVzIQ==';

describe('secret box', () => {
  it('seals with AES-256-GCM under the current key id and opens again', () => {
    const box = createSecretBox({ current: key1, previous: [] });
    const sealed = box.seal(secret);
    assert.match(sealed, new RegExp(`^enc:v1:${keyId(key1)}:[\\w-]+:[\\w-]+:[\\w-]+$`));
    assert.ok(!sealed.includes(secret.slice(6, 20)));
    assert.notEqual(box.seal(secret), sealed, 'a fresh IV each time');
    assert.equal(box.open(sealed), secret);
    assert.equal(box.isStale(sealed), false);
  });

  it('reads plaintext rows and rows of a previous key, and marks both stale', () => {
    const old = createSecretBox({ current: key1, previous: [] }).seal(secret);
    const box = createSecretBox({ current: key2, previous: [key1] });
    assert.equal(box.open(old), secret);
    assert.equal(box.open(secret), secret);
    assert.equal(box.isStale(old), true);
    assert.equal(box.isStale(secret), true);
  });

  it('refuses a tampered value or an unknown key, and stores plain without a key', () => {
    const sealed = createSecretBox({ current: key1, previous: [] }).seal(secret);
    const parts = sealed.split(':');
    parts[4] = Buffer.from('x'.repeat(40)).toString('base64url');
    assert.throws(() => createSecretBox({ current: key1, previous: [] }).open(parts.join(':')));
    assert.throws(() => createSecretBox({ current: key2, previous: [] }).open(sealed), /unknown key/);
    const none = createSecretBox(null);
    assert.equal(none.seal(secret), secret);
    assert.equal(none.isStale(secret), false);
  });
});

describe('re-sealing at start', () => {
  it('seals plaintext and previous-key values under the current key, and then finds none left', async () => {
    const { db } = world.storage;
    const previous = createSecretBox({ current: key1, previous: [] });
    const box = createSecretBox({ current: key2, previous: [key1] });
    const row = (label: string, stored: string, previousSecret: string | null = null) => ({
      owner: `owner-${label}`,
      url: `https://hooks.example.com/${label}`,
      events: ['vault.paused'],
      secret: stored,
      previousSecret,
    });
    await db
      .insert(webhooks)
      .values([
        row('a-current', box.seal(secret)),
        row('b-plain', secret),
        row('c-previous-key', previous.seal(secret)),
        row('d-current-with-old-previous', box.seal(secret), previous.seal(`${secret}x`)),
      ]);
    assert.equal(await resealWebhookSecrets(db, createSecretBox(null)), 0, 'no key: nothing to seal');
    assert.equal(await resealWebhookSecrets(db, box), 3);
    assert.equal(await resealWebhookSecrets(db, box), 0);
    const stored = await db.select().from(webhooks).orderBy(asc(webhooks.owner));
    for (const webhook of stored) {
      assert.equal(box.isStale(webhook.secret), false, webhook.owner);
      assert.equal(box.open(webhook.secret), secret);
    }
    assert.equal(box.open(stored[3]!.previousSecret!), `${secret}x`);
  });
});
