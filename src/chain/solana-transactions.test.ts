import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Address, getAddressDecoder, getBase58Decoder } from '@solana/kit';
import { buildApproveOverrideInstruction, buildPauseVaultInstruction } from './instructions.js';
import { COMPUTE_BUDGET_PROGRAM_ADDRESS, DEFAULT_PROGRAM_ID } from './program.js';
import { buildUnsignedTransaction, decodeTransactionBase64 } from './solana-transactions.js';

const addr = (fill: number): Address => getAddressDecoder().decode(new Uint8Array(32).fill(fill));
const latestBlockhash = {
  blockhash: getBase58Decoder().decode(new Uint8Array(32).fill(3)),
  lastValidBlockHeight: 100n,
};

describe('buildUnsignedTransaction', () => {
  it('builds a v0 transaction with zeroed signature slots that decodes back', async () => {
    const authority = addr(1);
    const pause = await buildPauseVaultInstruction({ authority, vaultNonce: 1n, vault: addr(2) });
    const b64 = buildUnsignedTransaction({
      feePayer: authority,
      latestBlockhash,
      instructions: [pause],
      computeUnitLimit: 50_000,
    });
    const raw = Buffer.from(b64, 'base64');
    assert.equal(raw[0], 1, 'one signature slot');
    assert.ok(
      raw.subarray(1, 65).every((b) => b === 0),
      'signature slot zeroed',
    );
    const tx = decodeTransactionBase64(b64);
    assert.equal(tx.version, 0);
    assert.equal(tx.feePayer, authority);
    assert.equal(tx.blockhash, latestBlockhash.blockhash);
    assert.deepEqual(tx.signatures, [{ address: authority, signature: null }]);
    assert.equal(tx.instructions.length, 2);
    const [budget, ix] = tx.instructions;
    assert.equal(budget?.programAddress, COMPUTE_BUDGET_PROGRAM_ADDRESS);
    assert.deepEqual([...(budget?.data ?? [])], [2, 0x50, 0xc3, 0, 0]);
    assert.equal(ix?.programAddress, DEFAULT_PROGRAM_ID);
    // the fee payer is promoted to a writable signer by compilation
    assert.deepEqual(ix?.accounts, [
      { address: addr(2), isSigner: false, isWritable: true },
      { address: authority, isSigner: true, isWritable: true },
    ]);
    assert.deepEqual(ix?.data, new Uint8Array(pause.data));
  });

  it('builds a legacy transaction when asked, keeping readonly flags of other accounts', async () => {
    const approve = await buildApproveOverrideInstruction({
      authority: addr(1),
      vaultNonce: 1n,
      overrideNonce: 0n,
      vault: addr(2),
      pendingOverride: addr(4),
    });
    const tx = decodeTransactionBase64(
      buildUnsignedTransaction({
        feePayer: addr(9),
        latestBlockhash,
        instructions: [approve],
        version: 'legacy',
      }),
    );
    assert.equal(tx.version, 'legacy');
    assert.equal(tx.signatures.length, 2);
    assert.deepEqual(tx.instructions[0]?.accounts, [
      { address: addr(2), isSigner: false, isWritable: false },
      { address: addr(1), isSigner: true, isWritable: false },
      { address: addr(4), isSigner: false, isWritable: true },
    ]);
  });
});
