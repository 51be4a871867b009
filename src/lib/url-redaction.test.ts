import assert from 'node:assert/strict';
import { test } from 'node:test';
import { applyReplacements, urlLabel, urlReplacements } from './url-redaction.js';

test('a URL in a text becomes its scheme and host; its path alone becomes [redacted]', () => {
  const url = 'https://rpc.example.com/v2/KEY?api-key=Q';
  assert.equal(urlLabel(url), 'https://rpc.example.com');
  const pairs = urlReplacements([url]);
  assert.equal(
    applyReplacements(`fetch ${url} failed; retried /v2/KEY?api-key=Q`, pairs),
    'fetch https://rpc.example.com failed; retried /[redacted]',
  );
  assert.equal(applyReplacements('nothing to hide', pairs), 'nothing to hide');
});
