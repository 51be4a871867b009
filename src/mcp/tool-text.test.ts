import assert from 'node:assert/strict';
import { test } from 'node:test';
import { approvalText, formatSol } from './tool-text.js';

test('formatSol writes lamports as exact SOL, without trailing zeros or rounding', () => {
  assert.equal(formatSol('0'), '0 SOL');
  assert.equal(formatSol('1'), '0.000000001 SOL');
  assert.equal(formatSol('1500000000'), '1.5 SOL');
  assert.equal(formatSol('1000000000'), '1 SOL');
  assert.equal(formatSol('18446744073709551615'), '18446744073.709551615 SOL');
});

test('approvalText tells an unseen transfer from one that asked for no approval', () => {
  const none = { status: 'none', nonce: null, expiresAt: null, blinkUrl: null, approvalUrl: null } as const;
  assert.match(approvalText({ ...none, amount: null, destination: null }), /has not seen a transfer/);
  assert.match(
    approvalText({ ...none, amount: '2000000000', destination: 'D' }),
    /^None: 2 SOL \(2000000000 lamports\) to D asked for no approval/,
  );
});
