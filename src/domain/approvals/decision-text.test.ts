import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  describeDuration,
  describeOverride,
  describeUnavailable,
  type OverrideFacts,
} from './decision-text.js';

const now = new Date('2026-11-22T01:00:00.000Z');
const facts: OverrideFacts = {
  vaultAddress: 'Vau1tAddress1111111111111111111111111111111',
  vaultName: 'Payroll',
  nonce: 3n,
  destination: 'Dest1nation11111111111111111111111111111111',
  amount: 1_500_000_001n,
  reason: 'not_whitelisted',
  status: 'pending',
  expiresAt: new Date('2026-11-22T02:05:00.000Z'),
};

test('durations read as a person says them', () => {
  assert.equal(describeDuration(30_000), 'less than a minute');
  assert.equal(describeDuration(60_000), '1 minute');
  assert.equal(describeDuration(42 * 60_000 + 59_000), '42 minutes');
  assert.equal(describeDuration(3_600_000), '1 hour');
  assert.equal(describeDuration(65 * 60_000), '1 hour 5 minutes');
  assert.equal(describeDuration(-5 * 60_000), '5 minutes');
});

test('a pending override is described with vault, exact amount, destination, reason and time left', () => {
  assert.equal(
    describeOverride(facts, now),
    'Vault "Payroll" blocked a transfer of 1.500000001 SOL (1500000001 lamports) to Dest1nation11111111111111111111111111111111 because the destination is not on the vault\'s whitelist. Approve to send it now, or reject it. Expires in 1 hour 5 minutes (2026-11-22T02:05:00.000Z).',
  );
});

test('an unnamed vault is named by its address, and an expired override says when it expired', () => {
  const expired = { ...facts, vaultName: '', expiresAt: new Date('2026-11-22T00:50:00.000Z') };
  const text = describeOverride(expired, now);
  assert.ok(text.startsWith(`Vault ${facts.vaultAddress} blocked`));
  assert.ok(text.endsWith('The request expired 10 minutes ago (2026-11-22T00:50:00.000Z).'));
  assert.match(describeUnavailable(expired, now) ?? '', /expired at 2026-11-22T00:50:00.000Z/);
  assert.equal(describeUnavailable(facts, now), null);
});
