import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { type Address, getAddressDecoder, getAddressEncoder } from '@solana/kit';
import {
  findPendingOverrideAddress,
  findTreasuryAddress,
  findVaultAddress,
  findVaultAuthorityAddress,
} from './pdas.js';
import { DEFAULT_PROGRAM_ID } from './program.js';

const authority = getAddressDecoder().decode(new Uint8Array(32).fill(7));
const enc = getAddressEncoder();
const u64le = (n: bigint) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(n);
  return b;
};

// Independent recomputation: sha256(seeds ‖ bump ‖ program id ‖ "ProgramDerivedAddress").
function derive(seeds: Uint8Array[], bump: number): Address {
  const hash = createHash('sha256');
  for (const seed of seeds) hash.update(seed);
  hash
    .update(Uint8Array.of(bump))
    .update(new Uint8Array(enc.encode(DEFAULT_PROGRAM_ID)))
    .update('ProgramDerivedAddress');
  return getAddressDecoder().decode(hash.digest());
}

describe('PDAs', () => {
  it('derives the vault from "vault", authority and the nonce as u64 LE, deterministically', async () => {
    const [vault, bump] = await findVaultAddress(DEFAULT_PROGRAM_ID, authority, 42n);
    assert.deepEqual(await findVaultAddress(DEFAULT_PROGRAM_ID, authority, 42n), [vault, bump]);
    assert.equal(
      vault,
      derive([Buffer.from('vault'), new Uint8Array(enc.encode(authority)), u64le(42n)], bump),
    );
    assert.notEqual((await findVaultAddress(DEFAULT_PROGRAM_ID, authority, 43n))[0], vault);
  });

  it('derives the deposit address, a pending override and the treasury from their seeds', async () => {
    const [vault] = await findVaultAddress(DEFAULT_PROGRAM_ID, authority, 1n);
    const vaultBytes = new Uint8Array(enc.encode(vault));
    const [deposit, b1] = await findVaultAuthorityAddress(DEFAULT_PROGRAM_ID, vault);
    assert.equal(deposit, derive([Buffer.from('vault_authority'), vaultBytes], b1));
    const [pending, b2] = await findPendingOverrideAddress(DEFAULT_PROGRAM_ID, vault, 5n);
    assert.equal(pending, derive([Buffer.from('override'), vaultBytes, u64le(5n)], b2));
    const [treasury, b3] = await findTreasuryAddress(DEFAULT_PROGRAM_ID);
    assert.equal(treasury, derive([Buffer.from('treasury')], b3));
  });
});
