import assert from 'node:assert/strict';
import { test } from 'node:test';
import { escapeHtml } from './html.js';

test('escapes every character that could end a text node or a quoted attribute', () => {
  assert.equal(
    escapeHtml(`<a href="x" title='y'>&</a>`),
    '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
  );
  assert.equal(
    escapeHtml('https://vk.test/webhooks/confirm/abc_-1'),
    'https://vk.test/webhooks/confirm/abc_-1',
  );
});
