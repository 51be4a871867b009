import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildEmailMessage } from './email-message.js';

const blinkUrl = 'https://vk.example.com/api/actions/VauLt1111111111111111111111111111111111111/7';
const approvalUrl = 'https://vk.example.com/overrides/VauLt1111111111111111111111111111111111111/7';

describe('e-mail messages', () => {
  it('says what was blocked, why, and links the approval page and the Blink', () => {
    const message = buildEmailMessage('transaction.blocked', {
      timestamp: '2026-11-22T01:27:42.000Z',
      data: {
        vault: 'VauLt1111111111111111111111111111111111111',
        destination: 'Dest11111111111111111111111111111111111111',
        amount: '1500000000',
        blockReason: 'exceeded_daily_limit',
        blinkUrl,
        approvalUrl,
        signature: null,
      },
    });
    assert.equal(message.subject, '[Vaultkeeper] Transfer blocked: 1.5 SOL from VauL…1111');
    assert.match(message.text, /Amount: +1\.5 SOL \(1500000000 lamports\)/);
    assert.match(message.text, /Reason: +daily limit exceeded/);
    assert.ok(message.text.includes(`Blink (approve or reject): ${blinkUrl}`));
    assert.ok(message.html.includes(`<a href="${blinkUrl}">`));
    assert.ok(message.text.includes(`Approve or reject in your browser: ${approvalUrl}`));
    assert.ok(message.html.includes(`<a href="${approvalUrl}">Approve or reject in your browser</a>`));
  });

  it('links a settled override to its page to see, not to act on', () => {
    const message = buildEmailMessage('override.executed', {
      data: { vault: 'V', nonce: '7', amount: '10', status: 'executed', blinkUrl, approvalUrl },
    });
    assert.ok(message.text.includes(`See it: ${approvalUrl}`));
    assert.ok(!message.text.includes(blinkUrl));
    assert.ok(!message.text.includes('Approve or reject'));
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

  it('links only http(s) URLs', () => {
    const message = buildEmailMessage('override.created', {
      data: { vault: 'V', nonce: '3', amount: '10', blinkUrl: 'javascript:alert(1)', approvalUrl: 'data:x' },
    });
    assert.ok(!message.html.includes('data:x'));
    assert.ok(!message.html.includes('javascript:'));
    assert.ok(!message.text.includes('javascript:'));
    assert.equal(message.subject, '[Vaultkeeper] Override 3 created: V');
  });

  it('describes the test event', () => {
    assert.equal(buildEmailMessage('webhook.test', { data: {} }).subject, '[Vaultkeeper] Test notification');
  });
});
