import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { getBase58Decoder } from '@solana/kit';
import { buildSignMessageText as serverText } from '../../src/domain/approvals/sign-message.js';
import { buildSignMessageText, decodeBase64, encodeBase58, encodeBase64 } from '../../web/encoding.js';

describe('owner page encodings', () => {
  test('base58 matches @solana/kit, leading zero bytes included', () => {
    const kit = getBase58Decoder();
    const samples = [
      new Uint8Array(64),
      new Uint8Array([0, 0, 1, 2]),
      new Uint8Array([255]),
      new Uint8Array(),
    ];
    for (let i = 0; i < 50; i++) samples.push(new Uint8Array(randomBytes(i % 2 === 0 ? 64 : 32)));
    for (const bytes of samples) assert.equal(encodeBase58(bytes), kit.decode(bytes));
  });

  test('base64 decodes and encodes the same bytes as Buffer', () => {
    const bytes = randomBytes(300);
    assert.deepEqual(Buffer.from(decodeBase64(bytes.toString('base64'))), bytes);
    for (const length of [0, 1, 2, 3, 1232]) {
      const sample = randomBytes(length);
      assert.equal(encodeBase64(new Uint8Array(sample)), sample.toString('base64'));
    }
  });

  test('the rejection text the page signs is the one the service verifies', () => {
    const data = {
      domain: 'vaults.example.com',
      address: '7ahLfVoTVkWGczwHEDNC4yX8zV1bJy9tr1kaztMtsbT9',
      statement: 'Reject the blocked transfer of 2 SOL from vault "Ops budget".',
      nonce: '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy',
      issuedAt: '2026-11-22T04:20:00.000Z',
    };
    assert.equal(buildSignMessageText(data), serverText(data));
    const withChain = { ...data, chainId: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1' };
    assert.equal(buildSignMessageText(withChain), serverText(withChain));
  });
});
