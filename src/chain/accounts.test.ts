import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Address, getAddressDecoder } from '@solana/kit';
import {
  AccountDecodeError,
  decodePendingOverride,
  decodeVaultConfig,
  encodePendingOverride,
  encodeVaultConfig,
  type PendingOverride,
  parseVaultConfigAccount,
} from './accounts.js';
import { ACCOUNT_DISCRIMINATORS, DEFAULT_PROGRAM_ID, SYSTEM_PROGRAM_ADDRESS } from './program.js';

const addr = (fill: number): Address => getAddressDecoder().decode(new Uint8Array(32).fill(fill));

function handMadeVaultConfig(): Buffer {
  const buf = Buffer.alloc(809);
  buf.set(ACCOUNT_DISCRIMINATORS.VaultConfig, 0);
  buf.fill(1, 8, 40);
  buf.fill(2, 40, 72);
  buf.writeBigUInt64LE(5_000_000_000n, 72);
  buf.writeBigUInt64LE(1_000n, 80);
  buf.writeBigInt64LE(1_700_000_000n, 88);
  buf.fill(3, 96, 128);
  buf.fill(4, 128, 160);
  buf.fill(9, 160, 192); // a stale third entry beyond whitelist_count
  buf[736] = 2;
  buf[737] = 2;
  buf.writeUInt16LE(5, 738);
  buf.write('Ops ✓', 740, 'utf8');
  buf[790] = Buffer.byteLength('Ops ✓');
  buf[791] = 1;
  buf.writeBigUInt64LE(4n, 792);
  buf.writeBigUInt64LE(77n, 800);
  buf[808] = 254;
  return buf;
}

describe('VaultConfig', () => {
  it('decodes the documented offsets', () => {
    assert.deepEqual(decodeVaultConfig(handMadeVaultConfig()), {
      authority: addr(1),
      agentSigner: addr(2),
      dailyLimit: 5_000_000_000n,
      spentToday: 1_000n,
      lastReset: 1_700_000_000n,
      whitelist: [addr(3), addr(4)],
      whitelistCount: 2,
      tier: 'enterprise',
      feeBasisPoints: 5,
      name: 'Ops ✓',
      paused: true,
      overrideNonce: 4n,
      vaultNonce: 77n,
      bump: 254,
    });
  });

  it('encodes back to the same bytes once stale whitelist slots are cleared', () => {
    const bytes = handMadeVaultConfig();
    const decoded = decodeVaultConfig(bytes);
    bytes.fill(0, 160, 192);
    assert.deepEqual(Buffer.from(encodeVaultConfig(decoded)), bytes);
    assert.equal(encodeVaultConfig({ ...decoded, whitelist: [] }).length, 809);
  });

  it('rejects a wrong size or discriminator with a coded error', () => {
    const bytes = handMadeVaultConfig();
    assert.throws(() => decodeVaultConfig(bytes.subarray(0, 808)), { code: 'ACCOUNT_SIZE_INVALID' });
    bytes[0] = 0;
    assert.throws(() => decodeVaultConfig(bytes), { code: 'ACCOUNT_DISCRIMINATOR_INVALID' });
    assert.throws(() => decodeVaultConfig(new Uint8Array(131)), AccountDecodeError);
  });

  it('rejects a bool byte other than 0/1 and an unknown tier (Kit would read them leniently)', () => {
    const paused = handMadeVaultConfig();
    paused[791] = 2;
    assert.throws(() => decodeVaultConfig(paused), { code: 'ACCOUNT_DISCRIMINATOR_INVALID' });
    const tier = handMadeVaultConfig();
    tier[737] = 3;
    assert.throws(() => decodeVaultConfig(tier), { code: 'ACCOUNT_DISCRIMINATOR_INVALID' });
  });

  it('parseVaultConfigAccount checks the owner is the program', () => {
    const data = handMadeVaultConfig();
    assert.equal(parseVaultConfigAccount(null, DEFAULT_PROGRAM_ID), null);
    assert.equal(
      parseVaultConfigAccount({ owner: DEFAULT_PROGRAM_ID, data }, DEFAULT_PROGRAM_ID)?.vaultNonce,
      77n,
    );
    assert.throws(
      () => parseVaultConfigAccount({ owner: SYSTEM_PROGRAM_ADDRESS, data }, DEFAULT_PROGRAM_ID),
      {
        code: 'ACCOUNT_OWNER_INVALID',
      },
    );
  });
});

describe('PendingOverride', () => {
  it('decodes the documented offsets and round-trips', () => {
    const buf = Buffer.alloc(131);
    buf.set(ACCOUNT_DISCRIMINATORS.PendingOverride, 0);
    buf.fill(1, 8, 40);
    buf.writeBigUInt64LE(3n, 40);
    buf.fill(7, 48, 80);
    buf.writeBigUInt64LE(250n, 80);
    buf.fill(2, 88, 120);
    buf.writeBigInt64LE(1_700_003_600n, 120);
    buf[128] = 0;
    buf[129] = 1;
    buf[130] = 253;
    const expected: PendingOverride = {
      vault: addr(1),
      nonce: 3n,
      instructionHash: new Uint8Array(32).fill(7),
      requestedAmount: 250n,
      destination: addr(2),
      expiresAt: 1_700_003_600n,
      executed: false,
      overrideType: 'emergency',
      bump: 253,
    };
    assert.deepEqual(decodePendingOverride(buf), expected);
    assert.deepEqual(Buffer.from(encodePendingOverride(expected)), buf);
    assert.throws(() => decodePendingOverride(buf.subarray(0, 130)), { code: 'ACCOUNT_SIZE_INVALID' });
  });
});
