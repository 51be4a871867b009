// Security headers (docs/API.md, Security headers): OWASP's REST set on every JSON response; pages (HTML
// documents) also get the headers only a browsing context reads.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { useTestApps } from '../support/test-apps.js';

const EVERY_RESPONSE = {
  'content-security-policy': /default-src 'none'.*frame-ancestors 'none'/,
  'cross-origin-resource-policy': /^cross-origin$/,
  'referrer-policy': /^no-referrer$/,
  'strict-transport-security': /^max-age=31536000; includeSubDomains$/,
  'x-content-type-options': /^nosniff$/,
  'x-frame-options': /^DENY$/,
};
const DOCUMENT_ONLY = [
  'cross-origin-opener-policy',
  'origin-agent-cluster',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
];

const world = useTestApps({ fileApp: true, emptyEachTest: false });

test('a JSON response carries the REST set and none of the headers only a document reads', async () => {
  for (const url of ['/api/vaults', '/api/vaults/11111111111111111111111111111111', '/api/nowhere']) {
    const response = await world.app.inject({ url });
    assert.match(String(response.headers['content-type']), /^application\/json/, url);
    for (const [name, value] of Object.entries(EVERY_RESPONSE)) {
      assert.match(String(response.headers[name]), value, `${url}: ${name}`);
    }
    for (const name of DOCUMENT_ONLY) assert.equal(response.headers[name], undefined, `${url}: ${name}`);
  }
});

test('a page carries the document headers as well, under its own policy', async () => {
  const response = await world.app.inject({ url: '/' });
  assert.match(String(response.headers['content-type']), /^text\/html/);
  assert.equal(response.headers['cross-origin-opener-policy'], 'same-origin');
  assert.equal(response.headers['x-xss-protection'], '0');
  assert.equal(response.headers['x-frame-options'], 'DENY');
  assert.equal(response.headers['x-content-type-options'], 'nosniff');
});
