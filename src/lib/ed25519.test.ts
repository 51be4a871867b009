import assert from 'node:assert/strict';
import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { describe, it } from 'node:test';
import { getBase58Decoder, getBase58Encoder } from '@solana/kit';
import fc from 'fast-check';
import { decodeBase58 } from './base58.js';
import { publicKeyOf, verifyEd25519 } from './ed25519.js';

const toBase58 = (bytes: Uint8Array) => getBase58Decoder().decode(bytes);

describe('decodeBase58', () => {
  it('decodes what kit encodes, leading zero bytes included', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 0, maxLength: 96 }), fc.nat(4), (body, zeros) => {
        const bytes = new Uint8Array([...new Uint8Array(zeros), ...body]);
        if (bytes.length === 0) return;
        assert.deepEqual(decodeBase58(toBase58(bytes)), bytes);
      }),
      { numRuns: 2_000 },
    );
  });

  it('agrees with kit on arbitrary base58 text', () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{1,90}$/), (text) => {
        assert.deepEqual(decodeBase58(text), new Uint8Array(getBase58Encoder().encode(text)));
      }),
      { numRuns: 2_000 },
    );
  });

  it('refuses characters outside the alphabet, empty text and overlong text', () => {
    for (const text of ['', '0', 'O', 'I', 'l', '+', 'abc def', 'ñ', '1'.repeat(201)]) {
      assert.equal(decodeBase58(text), null, text);
    }
  });
});

describe('verifyEd25519', () => {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const address = toBase58(Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url'));
  const message = Buffer.from('Sign this message to authenticate with Vaultkeeper.\n\nTimestamp: 1');
  const signature = new Uint8Array(sign(null, message, privateKey));

  it('accepts the signature of the address over the message', async () => {
    assert.equal(await verifyEd25519(address, message, signature), true);
  });

  it('rejects another message, a flipped bit, another key and a short signature', async () => {
    assert.equal(await verifyEd25519(address, Buffer.from('other'), signature), false);
    const flipped = signature.slice();
    flipped[63] = (flipped[63] ?? 0) ^ 0x01;
    assert.equal(await verifyEd25519(address, message, flipped), false);
    assert.equal(await verifyEd25519(toBase58(randomBytes(32)), message, signature), false);
    assert.equal(await verifyEd25519(address, message, signature.subarray(0, 63)), false);
  });

  it('publicKeyOf: null for text that is not a 32-byte key, one key object per address', () => {
    assert.equal(publicKeyOf(toBase58(randomBytes(31))), null);
    assert.equal(publicKeyOf('not base58!'), null);
    assert.equal(publicKeyOf(address), publicKeyOf(address));
  });
});
