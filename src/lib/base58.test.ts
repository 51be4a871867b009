import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { getBase58Decoder, isAddress } from '@solana/kit';
import fc from 'fast-check';
import { base58DecodedLength, isBase58Address } from './base58.js';

const base58 = getBase58Decoder();

test('decodes the byte length of base58 text, leading zero bytes included', () => {
  for (const size of [1, 2, 31, 32, 33, 64]) {
    for (let i = 0; i < 50; i += 1) {
      const bytes = randomBytes(size);
      if (i % 5 === 0) bytes[0] = 0;
      assert.equal(base58DecodedLength(base58.decode(bytes)), size);
    }
  }
  assert.equal(base58DecodedLength('11111111111111111111111111111111'), 32);
  assert.equal(base58DecodedLength(''), null);
  assert.equal(base58DecodedLength('0OIl'), null);
  assert.equal(base58DecodedLength('abc-def'), null);
  assert.equal(base58DecodedLength('é'), null);
});

test('accepts exactly what @solana/kit isAddress accepts', () => {
  const alphabet = [...'123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz0OIl+/'];
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...alphabet), { minLength: 28, maxLength: 46 }), (chars) => {
      const text = chars.join('');
      assert.equal(isBase58Address(text), isAddress(text), text);
    }),
    { numRuns: 2_000 },
  );
  for (let i = 0; i < 200; i += 1) assert.equal(isBase58Address(base58.decode(randomBytes(32))), true);
});
