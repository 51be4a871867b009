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

  it('names the vault the worker read beside its short address, escaped in the HTML', () => {
    const message = buildEmailMessage(
      'transaction.executed',
      { data: { vault: 'VauLt1111111111111111111111111111111111111', amount: '1000000000' } },
      { vaultName: 'Ops <b>&' },
    );
    assert.equal(message.subject, '[Vaultkeeper] Transfer sent: 1 SOL from Ops <b>& (VauL…1111)');
    assert.match(message.text, /Vault name: +Ops <b>&/);
    assert.ok(message.html.includes('Ops &lt;b&gt;&amp;'));
    assert.ok(!message.html.includes('<b>&'));
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
  it('tells the owner which budget threshold was crossed, with the window figures', () => {
    const message = buildEmailMessage('budget.threshold', {
      timestamp: '2026-11-22T12:00:00.000Z',
      data: {
        vault: 'VauLt1111111111111111111111111111111111111',
        threshold: 80,
        dailyLimit: '10000000000',
        spentToday: '8500000000',
        remaining: '1500000000',
        windowStart: '2026-11-22T00:00:00.000Z',
        resetsAt: '2026-11-23T00:00:00.000Z',
        signature: 'Sig1',
      },
    });
    assert.equal(message.subject, '[Vaultkeeper] 80 % of the daily limit spent: VauL…1111');
    assert.match(message.text, /Spent in this window: +8\.5 SOL/);
    assert.match(message.text, /Remaining: +1\.5 SOL/);
    assert.match(message.text, /Window resets at: +2026-11-23T00:00:00\.000Z/);
  });

  it('names the rate for a velocity alert', () => {
    const message = buildEmailMessage('agent.velocity', {
      data: { vault: 'V', agentSigner: 'Agent1', windowSeconds: 60, maxTransfers: 20, count: 21, since: 'x' },
    });
    assert.equal(message.subject, '[Vaultkeeper] Unusual transfer rate: V');
    assert.match(message.text, /Attempts: +21/);
    assert.match(message.text, /Allowed: +20 in 60 s/);
  });

  it('links an expiring approval to act on, and an expired one only to see', () => {
    const override = { vault: 'V', nonce: '7', amount: '10', status: 'pending', blinkUrl, approvalUrl };
    const expiring = buildEmailMessage('override.expiring', { data: { ...override, minutesLeft: 12 } });
    assert.equal(expiring.subject, '[Vaultkeeper] Approval expires in 12 min: V');
    assert.ok(expiring.text.includes(`Approve or reject in your browser: ${approvalUrl}`));
    assert.ok(expiring.text.includes(`Blink (approve or reject): ${blinkUrl}`));
    const expired = buildEmailMessage('override.expired', { data: { ...override, expired: true } });
    assert.equal(expired.subject, '[Vaultkeeper] Approval expired: V');
    assert.ok(expired.text.includes(`See it: ${approvalUrl}`));
    assert.ok(!expired.text.includes(blinkUrl));
  });
});
