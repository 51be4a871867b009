import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Address, getAddressDecoder } from '@solana/kit';
import { EVENT_DISCRIMINATORS, EVENT_NAMES } from './program.js';
import { decodeProgramEvent, encodeProgramEvent, type ProgramEvent, toJson } from './program-events.js';

const addr = (fill: number): Address => getAddressDecoder().decode(new Uint8Array(32).fill(fill));
const u64le = (value: bigint): number[] => {
  const buf = Buffer.alloc(8);
  buf.writeBigUInt64LE(value);
  return [...buf];
};

describe('decodeProgramEvent', () => {
  it('decodes hand-made VaultCreated bytes', () => {
    const bytes = new Uint8Array([
      117,
      25,
      120,
      254,
      75,
      236,
      78,
      115,
      ...new Array(32).fill(1),
      ...new Array(32).fill(2),
      1,
      ...u64le(5_000_000_000n),
    ]);
    assert.deepEqual(decodeProgramEvent(bytes), {
      name: 'VaultCreated',
      data: { vault: addr(1), authority: addr(2), tier: 'team', dailyLimit: 5_000_000_000n },
    });
  });

  it('decodes TransactionBlocked with Some and None override nonce at the documented offsets', () => {
    const head = [...EVENT_DISCRIMINATORS.TransactionBlocked, ...new Array(32).fill(3), 1, ...u64le(42n)];
    const dest = new Array(32).fill(4);
    const some = decodeProgramEvent(new Uint8Array([...head, ...dest, 1, ...u64le(7n)]));
    assert.deepEqual(some, {
      name: 'TransactionBlocked',
      data: {
        vault: addr(3),
        reason: 'exceeded_daily_limit',
        amount: 42n,
        destination: addr(4),
        overrideNonce: 7n,
      },
    });
    const none = decodeProgramEvent(new Uint8Array([...head, ...dest, 0]));
    assert.equal(none.name === 'TransactionBlocked' && none.data.overrideNonce, null);
  });

  it('decodes TransactionExecuted fields in order', () => {
    const bytes = new Uint8Array([
      ...EVENT_DISCRIMINATORS.TransactionExecuted,
      ...new Array(32).fill(5),
      ...u64le(1000n),
      ...new Array(32).fill(6),
      ...u64le(5n),
      ...u64le(9000n),
      ...u64le(2000n),
    ]);
    assert.deepEqual(decodeProgramEvent(bytes), {
      name: 'TransactionExecuted',
      data: {
        vault: addr(5),
        amount: 1000n,
        destination: addr(6),
        feeCollected: 5n,
        newBalance: 9000n,
        spentToday: 2000n,
      },
    });
  });

  it('returns Unknown for an unknown discriminator', () => {
    const event = decodeProgramEvent(new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9]));
    assert.deepEqual(event, { name: 'Unknown', discriminator: '0102030405060708', raw: 'AQIDBAUGBwgJ' });
  });

  it('returns Unknown with an error for short, bad-enum or bad-option bytes of a known event', () => {
    const short = decodeProgramEvent(new Uint8Array([...EVENT_DISCRIMINATORS.TransactionExecuted, 1, 2, 3]));
    assert.equal(short.name, 'Unknown');
    assert.match(short.name === 'Unknown' ? (short.error ?? '') : '', /malformed TransactionExecuted/);
    const badReason = [...EVENT_DISCRIMINATORS.TransactionBlocked, ...new Array(32).fill(3), 9, ...u64le(1n)];
    assert.equal(
      decodeProgramEvent(new Uint8Array([...badReason, ...new Array(32).fill(4), 0])).name,
      'Unknown',
    );
    const badTag = [...EVENT_DISCRIMINATORS.TransactionBlocked, ...new Array(32).fill(3), 0, ...u64le(1n)];
    assert.equal(
      decodeProgramEvent(new Uint8Array([...badTag, ...new Array(32).fill(4), 2])).name,
      'Unknown',
    );
    // Kit's own decoders would read these as Some/None and false: ours reject them.
    const tagTwoWithValue = decodeProgramEvent(
      new Uint8Array([...badTag, ...new Array(32).fill(4), 2, ...u64le(5n)]),
    );
    assert.match(tagTwoWithValue.name === 'Unknown' ? (tagTwoWithValue.error ?? '') : '', /option tag/);
    const boolTwo = [...EVENT_DISCRIMINATORS.WhitelistUpdated, ...new Array(64).fill(3), 2, ...u64le(1n)];
    assert.equal(decodeProgramEvent(new Uint8Array(boolTwo)).name, 'Unknown');
    assert.equal(decodeProgramEvent(new Uint8Array([1, 2])).name, 'Unknown');
  });

  it('round-trips every event through encodeProgramEvent', () => {
    const samples: ProgramEvent[] = [
      {
        name: 'VaultCreated',
        data: { vault: addr(1), authority: addr(2), tier: 'enterprise', dailyLimit: 1n },
      },
      {
        name: 'VaultInitialized',
        data: { vault: addr(1), authority: addr(2), dailyLimit: 3n, timestamp: -4n },
      },
      {
        name: 'TransactionExecuted',
        data: {
          vault: addr(1),
          amount: 2n ** 64n - 1n,
          destination: addr(3),
          feeCollected: 1n,
          newBalance: 0n,
          spentToday: 9n,
        },
      },
      {
        name: 'TransactionBlocked',
        data: {
          vault: addr(1),
          reason: 'insufficient_funds',
          amount: 5n,
          destination: addr(3),
          overrideNonce: null,
        },
      },
      {
        name: 'OverrideCreated',
        data: { vault: addr(1), nonce: 3n, amount: 4n, destination: addr(5), expiresAt: 1_700_000_000n },
      },
      { name: 'OverrideApproved', data: { vault: addr(1), nonce: 3n, timestamp: 1_700_000_100n } },
      { name: 'PolicyUpdated', data: { vault: addr(1), dailyLimit: 10n, whitelistSize: 20 } },
      { name: 'VaultPaused', data: { vault: addr(1) } },
      { name: 'VaultResumed', data: { vault: addr(1) } },
      {
        name: 'AgentSignerUpdated',
        data: { vault: addr(1), oldSigner: addr(2), newSigner: addr(3), timestamp: 1n },
      },
      { name: 'WhitelistUpdated', data: { vault: addr(1), address: addr(2), added: true, timestamp: 1n } },
      { name: 'FeeTreasuryInitialized', data: { treasury: addr(1), authority: addr(2), timestamp: 1n } },
      {
        name: 'FeesWithdrawn',
        data: { treasury: addr(1), amount: 2n, recipient: addr(3), remainingBalance: 4n, timestamp: 5n },
      },
    ];
    assert.deepEqual(new Set(samples.map((e) => e.name)), new Set(EVENT_NAMES));
    for (const event of samples) assert.deepEqual(decodeProgramEvent(encodeProgramEvent(event)), event);
    const unknown = decodeProgramEvent(new Uint8Array([9, 9, 9, 9, 9, 9, 9, 9, 1]));
    assert.deepEqual(decodeProgramEvent(encodeProgramEvent(unknown)), unknown);
  });
});

describe('toJson', () => {
  it('turns bigints into decimal strings and keeps null', () => {
    const event = decodeProgramEvent(
      encodeProgramEvent({
        name: 'TransactionBlocked',
        data: {
          vault: addr(1),
          reason: 'not_whitelisted',
          amount: 2n ** 63n,
          destination: addr(2),
          overrideNonce: null,
        },
      }),
    );
    assert.deepEqual(toJson(event), {
      name: 'TransactionBlocked',
      data: {
        vault: addr(1),
        reason: 'not_whitelisted',
        amount: '9223372036854775808',
        destination: addr(2),
        overrideNonce: null,
      },
    });
  });
});
