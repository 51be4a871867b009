// The fake's codecs against the program's published interface alone: the IDL's discriminators, the
// account and event layouts (offsets as the program lays them out), the PDAs' seeds and the Clock.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { type Address, getAddressEncoder } from '@solana/kit';
import { encodeClockSysvar } from './clock-sysvar.js';
import {
  decodePendingOverride,
  decodeVaultConfig,
  encodePendingOverride,
  encodeVaultConfig,
  type PendingOverride,
  type VaultConfig,
} from './program-accounts.js';
import { decodeProgramEvent, encodeProgramEvent, type KnownProgramEvent } from './program-events.js';
import { DEFAULT_PROGRAM_ID, getEnumValues, IDL, PROGRAM_ERRORS } from './program-idl.js';
import {
  buildVaultInstruction,
  decodeInstruction,
  findPendingOverrideAddress,
  findVaultAddress,
} from './program-instructions.js';
import { randomAddress } from './scenarios.js';

const sha8 = (text: string) => [...createHash('sha256').update(text).digest().subarray(0, 8)];
const bytesOf = (address: Address) => Buffer.from(getAddressEncoder().encode(address));

describe("the fake's codecs follow the program's IDL", () => {
  it('takes the program id, errors, enums and Anchor discriminators from the IDL', () => {
    assert.equal(DEFAULT_PROGRAM_ID, 'ET9WDoFE2bf4bSmciLL7q7sKdeSYeNkWbNMHbAMBu2ZJ');
    assert.deepEqual(PROGRAM_ERRORS.NotWhitelisted, {
      code: 12000,
      message: 'Destination address is not whitelisted',
    });
    assert.equal(PROGRAM_ERRORS.InvalidAgentSigner?.code, 12016);
    assert.deepEqual(getEnumValues('BlockReason'), [
      'not_whitelisted',
      'exceeded_daily_limit',
      'insufficient_funds',
    ]);
    assert.deepEqual(getEnumValues('VaultTier'), ['personal', 'team', 'enterprise']);
    assert.deepEqual(getEnumValues('OverrideType'), ['exceeded_limit', 'emergency']);
    for (const e of IDL.events) assert.deepEqual(e.discriminator, sha8(`event:${e.name}`), e.name);
    for (const a of IDL.accounts) assert.deepEqual(a.discriminator, sha8(`account:${a.name}`), a.name);
    for (const i of IDL.instructions) assert.deepEqual(i.discriminator, sha8(`global:${i.name}`), i.name);
  });

  it('writes a VaultConfig of 809 bytes with the fields at their offsets, and reads it back', () => {
    const whitelist = [randomAddress(), randomAddress()];
    const config: VaultConfig = {
      authority: randomAddress(),
      agentSigner: randomAddress(),
      dailyLimit: 10n ** 12n,
      spentToday: 7n,
      lastReset: -3n,
      whitelist,
      whitelistCount: 2,
      tier: 'team',
      feeBasisPoints: 5,
      name: 'Ops ✓',
      paused: true,
      overrideNonce: 4n,
      vaultNonce: 2n ** 64n - 1n,
      bump: 254,
    };
    const data = Buffer.from(encodeVaultConfig(config));
    assert.equal(data.length, 809);
    assert.deepEqual([...data.subarray(0, 8)], sha8('account:VaultConfig'));
    assert.deepEqual(data.subarray(40, 72), bytesOf(config.agentSigner));
    assert.equal(data.readBigUInt64LE(72), config.dailyLimit);
    assert.equal(data.readBigInt64LE(88), -3n);
    assert.deepEqual(data.subarray(128, 160), bytesOf(whitelist[1] as Address));
    assert.deepEqual(data.subarray(160, 736), Buffer.alloc(576), 'unused whitelist slots are zero');
    assert.deepEqual([data[736], data[737], data.readUInt16LE(738)], [2, 1, 5]);
    assert.equal(data.subarray(740, 740 + data[790]!).toString('utf8'), 'Ops ✓');
    assert.deepEqual(
      [data[791], data.readBigUInt64LE(792), data.readBigUInt64LE(800), data[808]],
      [1, 4n, 2n ** 64n - 1n, 254],
    );
    assert.deepEqual(decodeVaultConfig(data), config);
  });

  it('writes a PendingOverride of 131 bytes and reads it back; its bytes are no VaultConfig', () => {
    const value: PendingOverride = {
      vault: randomAddress(),
      nonce: 3n,
      instructionHash: new Uint8Array(32).fill(9),
      requestedAmount: 5_000n,
      destination: randomAddress(),
      expiresAt: 1_800_003_600n,
      executed: false,
      overrideType: 'emergency',
      bump: 200,
    };
    const data = Buffer.from(encodePendingOverride(value));
    assert.equal(data.length, 131);
    assert.equal(data.readBigInt64LE(120), value.expiresAt);
    assert.deepEqual([data[128], data[129], data[130]], [0, 1, 200]);
    assert.deepEqual(decodePendingOverride(data), value);
    assert.throws(() => decodeVaultConfig(data), /discriminator/i);
  });

  it('emits events as discriminator ‖ borsh at the offsets of the IDL, and reads them back', () => {
    const blocked: KnownProgramEvent = {
      name: 'TransactionBlocked',
      data: {
        vault: randomAddress(),
        reason: 'exceeded_daily_limit',
        amount: 123n,
        destination: randomAddress(),
        overrideNonce: 6n,
      },
    };
    const bytes = Buffer.from(encodeProgramEvent(blocked));
    assert.deepEqual([...bytes.subarray(0, 8)], sha8('event:TransactionBlocked'));
    assert.deepEqual(
      [bytes[40], bytes.readBigUInt64LE(41), bytes[81], bytes.readBigUInt64LE(82)],
      [1, 123n, 1, 6n],
    );
    assert.deepEqual(decodeProgramEvent(bytes), blocked);
    const created: KnownProgramEvent = {
      name: 'VaultCreated',
      data: { vault: randomAddress(), authority: randomAddress(), tier: 'enterprise', dailyLimit: 9n },
    };
    assert.deepEqual(decodeProgramEvent(encodeProgramEvent(created)), created);
    const unknown = new Uint8Array([0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 42]);
    assert.deepEqual(decodeProgramEvent(unknown), {
      name: 'Unknown',
      discriminator: 'deadbeef01020304',
      raw: Buffer.from(unknown).toString('base64'),
    });
    const cut = decodeProgramEvent(bytes.subarray(0, 20));
    assert.equal(cut.name, 'Unknown');
    assert.match((cut as { error?: string }).error ?? '', /^malformed TransactionBlocked/);
  });

  it('builds and decodes instructions with the accounts and flags the IDL lists, at the IDL seeds', async () => {
    const authority = randomAddress();
    const [vault] = await findVaultAddress(DEFAULT_PROGRAM_ID, authority, 7n);
    const [pending] = await findPendingOverrideAddress(DEFAULT_PROGRAM_ID, vault, 0n);
    const args = {
      vaultNonce: 7n,
      destination: randomAddress(),
      amount: 50n,
      reason: 'not_whitelisted' as const,
    };
    const ix = buildVaultInstruction(
      DEFAULT_PROGRAM_ID,
      'create_override',
      { vault, authority, pending_override: pending },
      args,
    );
    assert.deepEqual(decodeInstruction(ix.data), { name: 'create_override', args });
    assert.deepEqual(
      ix.accounts.map((a) => [a.address, a.isSigner, a.isWritable]),
      [
        [vault, false, true],
        [authority, true, true],
        [pending, false, true],
        ['11111111111111111111111111111111', false, false],
      ],
    );
    assert.equal(decodeInstruction(new Uint8Array(8)), null);
    assert.equal(decodeInstruction(ix.data.subarray(0, 12)), null);
    // The PDAs' constant seeds are the IDL's.
    const constSeeds = new Set(
      IDL.instructions.flatMap((i) =>
        i.accounts.flatMap(
          (a) =>
            (a as { pda?: { seeds: { kind: string; value?: number[] }[] } }).pda?.seeds
              .filter((s) => s.kind === 'const')
              .map((s) => Buffer.from(s.value ?? []).toString('utf8')) ?? [],
        ),
      ),
    );
    assert.deepEqual([...constSeeds].sort(), ['override', 'treasury', 'vault', 'vault_authority']);
  });

  it('writes the Clock sysvar in its 40-byte layout', () => {
    const data = Buffer.from(
      encodeClockSysvar({
        slot: 1n,
        epochStartTimestamp: -2n,
        epoch: 3n,
        leaderScheduleEpoch: 4n,
        unixTimestamp: 1_800_000_000n,
      }),
    );
    assert.equal(data.length, 40);
    assert.deepEqual(
      [
        data.readBigUInt64LE(0),
        data.readBigInt64LE(8),
        data.readBigUInt64LE(16),
        data.readBigUInt64LE(24),
        data.readBigInt64LE(32),
      ],
      [1n, -2n, 3n, 4n, 1_800_000_000n],
    );
  });
});
