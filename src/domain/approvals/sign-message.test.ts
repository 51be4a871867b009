import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { buildSignMessageText, createActionNonce, createStateCodec } from './sign-message.js';

const data = {
  domain: 'vaultkeeper.example:8443',
  address: '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin',
  statement: 'Reject override 7.',
  nonce: 'Ab3dEf9hJk',
  issuedAt: '2026-11-22T01:27:42.000Z',
};

describe('buildSignMessageText', () => {
  test('writes the Actions 2.4 text with the chain id line when a chain id is set', () => {
    assert.equal(
      buildSignMessageText({ ...data, chainId: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1' }),
      'vaultkeeper.example:8443 wants you to sign a message with your account:\n' +
        '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin\n\n' +
        'Reject override 7.\n\n' +
        'Chain ID: solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1\n' +
        'Nonce: Ab3dEf9hJk\n' +
        'Issued At: 2026-11-22T01:27:42.000Z',
    );
  });

  test('leaves the chain id line out when none is set', () => {
    assert.ok(
      buildSignMessageText(data).endsWith(
        'Reject override 7.\n\nNonce: Ab3dEf9hJk\nIssued At: 2026-11-22T01:27:42.000Z',
      ),
    );
    assert.ok(!buildSignMessageText({ ...data, chainId: '' }).includes('Chain ID'));
  });
});

test('nonces are alphanumeric, at least 8 characters, and never repeat', () => {
  const seen = new Set(Array.from({ length: 200 }, () => createActionNonce()));
  assert.equal(seen.size, 200);
  for (const nonce of seen) assert.match(nonce, /^[A-Za-z0-9]{8,}$/);
});

describe('state codec', () => {
  const fields = {
    nonce: 'Ab3dEf9hJk',
    overrideId: 'c0ffee00-0000-4000-8000-000000000001',
    account: data.address,
    issuedAt: data.issuedAt,
  };

  test('verifies what it issued and names its nonce and issue time', () => {
    const codec = createStateCodec(null);
    const state = codec.encode(fields);
    assert.deepEqual(codec.parse(state), { nonce: fields.nonce, issuedAt: fields.issuedAt });
    assert.equal(codec.verify(state, fields), true);
    assert.equal(codec.shared, false);
  });

  test('refuses a state bound to another override, account or time', () => {
    const codec = createStateCodec(null);
    const state = codec.encode(fields);
    assert.equal(
      codec.verify(state, { ...fields, overrideId: 'c0ffee00-0000-4000-8000-000000000002' }),
      false,
    );
    assert.equal(codec.verify(state, { ...fields, account: '11111111111111111111111111111111' }), false);
    assert.equal(codec.verify(state, { ...fields, issuedAt: '2026-11-22T01:27:43.000Z' }), false);
  });

  test('instances sharing ACTIONS_STATE_SECRET verify each other; random keys do not', () => {
    const secret = 'x'.repeat(40);
    const state = createStateCodec(secret).encode(fields);
    assert.equal(createStateCodec(secret).verify(state, fields), true);
    assert.equal(createStateCodec(secret).shared, true);
    assert.equal(createStateCodec(null).verify(createStateCodec(null).encode(fields), fields), false);
  });

  test('parses nothing out of text it did not issue', () => {
    const codec = createStateCodec(null);
    for (const bad of [
      '',
      'v2.',
      `v1.Ab3dEf9hJk.${'A'.repeat(43)}`,
      `v2.Ab3dEf9hJk.${'A'.repeat(43)}`,
      'v2.Ab3dEf9hJk.1700000000000.short',
      `v2.0OIl0OIl.1700000000000.${'A'.repeat(43)}`,
    ]) {
      assert.equal(codec.parse(bad), null, bad);
      assert.equal(codec.verify(bad, fields), false, bad);
    }
  });
});
