// The owner console's API key rows: scopes, vaults, last use and expiry as an owner reads them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { describeApiKey } from '../../web/api-key-rows.js';

const VAULT = '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU';
const OTHER = '9Y25psbNbYT7fXME6LyX4tYhQ6uKFsGLEMwPPTUCRG6P';
const NOW = Date.parse('2026-11-29T12:00:00Z');
const key = (over: Record<string, unknown>) => ({
  id: '6f1c1f5e-7b8b-4c1e-9d2a-111111111111',
  name: 'reporting script',
  prefix: 'vk_live_ab',
  createdAt: '2026-11-01T00:00:00.000Z',
  lastUsedAt: null,
  scopes: ['read', 'webhooks', 'vaults:write', 'exports', 'audit'] as const,
  vaults: null,
  expiresAt: null,
  ...over,
});

test('an all-powerful, eternal key reads as such; a limited one names its scopes and vaults', () => {
  const broad = describeApiKey(key({}) as never, VAULT, NOW);
  assert.deepEqual(
    [broad.scopes, broad.vaults, broad.lastUsed, broad.expiry, broad.warn],
    ['all', 'every vault', 'never', 'never', false],
  );
  assert.equal(broad.prefix, 'vk_live_ab…');
  const narrow = describeApiKey(
    key({
      scopes: ['read', 'exports'],
      vaults: [VAULT, OTHER],
      lastUsedAt: '2026-11-29T11:50:00.000Z',
    }) as never,
    VAULT,
    NOW,
  );
  assert.equal(narrow.scopes, 'read, exports');
  assert.equal(narrow.vaults, 'this vault, 9Y25…RG6P');
  assert.equal(narrow.lastUsed, '10 min ago');
});

test('an expiry within a week warns; a past one says expired', () => {
  const soon = describeApiKey(key({ expiresAt: '2026-12-02T12:00:00.000Z' }) as never, VAULT, NOW);
  assert.equal(soon.warn, true);
  assert.doesNotMatch(soon.expiry, /expired/);
  const later = describeApiKey(key({ expiresAt: '2027-03-01T00:00:00.000Z' }) as never, VAULT, NOW);
  assert.equal(later.warn, false);
  const past = describeApiKey(key({ expiresAt: '2026-11-20T00:00:00.000Z' }) as never, VAULT, NOW);
  assert.match(past.expiry, /^expired /);
  assert.equal(past.warn, true);
});
