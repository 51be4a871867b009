import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildEmailMessage } from './email-message.js';

const blinkUrl = 'https://vk.example.com/api/actions/VauLt1111111111111111111111111111111111111/7';

describe('e-mail messages', () => {
  it('says what was blocked, why, and links the Blink', () => {
    const message = buildEmailMessage('transaction.blocked', {
      timestamp: '2026-11-22T01:27:42.000Z',
      data: {
        vault: 'VauLt1111111111111111111111111111111111111',
        destination: 'Dest11111111111111111111111111111111111111',
        amount: '1500000000',
        blockReason: 'exceeded_daily_limit',
        blinkUrl,
        signature: null,
      },
    });
    assert.equal(message.subject, '[Vaultkeeper] Transfer blocked: 1.5 SOL from VauL…1111');
    assert.match(message.text, /Amount: +1\.5 SOL \(1500000000 lamports\)/);
    assert.match(message.text, /Reason: +daily limit exceeded/);
    assert.ok(message.text.includes(`Blink (approve or reject): ${blinkUrl}`));
    assert.ok(message.html.includes(`<a href="${blinkUrl}">`));
  });

  it('escapes every value in the HTML part', () => {
    const message = buildEmailMessage('vault.paused', {
      data: {
        vault: { address: 'VauLt1111111111111111111111111111111111111', name: '<script>alert("x")</script>' },
      },
    });
    assert.ok(!message.html.includes('<script>'));
    assert.ok(message.html.includes('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;'));
    assert.match(message.subject, /^\[Vaultkeeper\] Vault paused: <script>/);
  });

  it('links only http(s) Blink URLs', () => {
    const message = buildEmailMessage('override.created', {
      data: { vault: 'V', nonce: '3', amount: '10', blinkUrl: 'javascript:alert(1)' },
    });
    assert.ok(!message.html.includes('javascript:'));
    assert.ok(!message.text.includes('javascript:'));
    assert.equal(message.subject, '[Vaultkeeper] Override 3 created: V');
  });

  it('describes the test event', () => {
    assert.equal(buildEmailMessage('webhook.test', { data: {} }).subject, '[Vaultkeeper] Test notification');
  });
});
