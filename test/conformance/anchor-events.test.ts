// Events and accounts as anchor writes them: every event kind of the IDL is encoded by anchor's
// BorshCoder, printed as `Program data:` lines by the vault program on the test validator, ingested
// by the real ingestor and read back through the API, with edge values (u64 max, 2^53 + 1, a
// multi-byte UTF-8 name, two events in one transaction). Account data decodes the same with
// anchor's account coder and with the service's codec, both ways.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { PublicKey } from '@solana/web3.js';
import { asc, eq } from 'drizzle-orm';
import type { FastifyInstance } from 'fastify';
import { randomAddress } from '../../dev/validator/scenarios.js';
import {
  decodePendingOverride,
  decodeVaultConfig,
  encodePendingOverride,
  encodeVaultConfig,
  type VaultConfig,
} from '../../src/chain/accounts.js';
import { chainEvents } from '../../src/storage/schema/index.js';
import { useConformanceHarness } from '../support/conformance-app.js';
import { coder, encodeAnchorEvent, idl, plain, u64 } from '../support/idl-conformance.js';
import { SOL } from '../support/ingestion-harness.js';
import { waitForSignatures } from '../support/wait.js';

const h = useConformanceHarness();
const toKey = (value: string) => new PublicKey(value);
const U64_MAX = 18_446_744_073_709_551_615n;
const BEYOND_DOUBLE = 2n ** 53n + 1n; // 9007199254740993: a JSON number would round it
const I64_MAX = 2n ** 63n - 1n;
const UTF8_NAME = 'Trésorerie ☕ 東京 🚀'; // 17 characters, 31 UTF-8 bytes

async function getJson(app: FastifyInstance, url: string) {
  const response = await app.inject({ url });
  assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
  return response.json();
}

async function storedEvents(signature: string) {
  return h.storage.storage.db
    .select()
    .from(chainEvents)
    .where(eq(chainEvents.signature, signature))
    .orderBy(asc(chainEvents.eventIndex));
}

/** The program writes the VaultConfig account as well as emitting the event: the fake's ledger does too. */
function programWrites(vault: Address, change: Partial<VaultConfig>): void {
  const entry = h.fake.getVault(vault);
  assert.ok(entry);
  Object.assign(entry.config, change);
}

type EventData = Record<string, unknown>;
const camel = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
/** What the service's decoder should have read from anchor's encoding, as its raw event log keeps it. */
function asStored(data: EventData, enums: EventData = {}): EventData {
  return Object.fromEntries(
    Object.entries(data).map(([key, value]) => [
      camel(key),
      key in enums ? enums[key] : typeof value === 'bigint' ? value.toString() : value,
    ]),
  );
}

/** Encodes each event with anchor, emits them (one instruction each) and checks what was decoded. */
async function emit(
  vault: Address,
  events: { instruction: string; name: string; data: EventData; enums?: EventData }[],
): Promise<string> {
  const signature = await h.emitEvents(
    vault,
    events.map(({ instruction, name, data }) => ({ instruction, events: [encodeAnchorEvent(name, data)] })),
  );
  assert.deepEqual(
    (await storedEvents(signature)).map((e) => [e.eventIndex, e.name, e.data]),
    events.map(({ name, data, enums }, i) => [i, name, asStored(data, enums)]),
    'the service decodes what anchor encoded, field for field',
  );
  return signature;
}

describe('events encoded by anchor, ingested and read back through the API', () => {
  test('every vault event kind with edge values, two of them in one transaction', async () => {
    await h.startLive();
    const app = await h.app();
    const created = await h.fake.createVault({ dailyLimit: SOL, name: UTF8_NAME, tier: 'personal' });
    const vault = created.vault;
    const url = `/api/vaults/${vault}`;
    await waitForSignatures(h.storage.storage, [created.signature]);
    assert.equal(
      (await getJson(app, url)).name,
      UTF8_NAME,
      'the UTF-8 name read from the VaultConfig account',
    );

    const authority = created.authority;
    programWrites(vault, { dailyLimit: BEYOND_DOUBLE, tier: 'enterprise' });
    await emit(vault, [
      {
        instruction: 'initialize_vault',
        name: 'VaultCreated',
        data: { vault, authority, tier: 2, daily_limit: BEYOND_DOUBLE },
        enums: { tier: 'enterprise' },
      },
      {
        instruction: 'initialize_vault',
        name: 'VaultInitialized',
        data: { vault, authority, daily_limit: BEYOND_DOUBLE, timestamp: I64_MAX },
      },
    ]);
    let detail = await getJson(app, url);
    assert.equal(detail.dailyLimit, BEYOND_DOUBLE.toString());
    assert.equal(detail.tier, 'enterprise');
    assert.equal(detail.name, UTF8_NAME);

    programWrites(vault, { dailyLimit: U64_MAX, paused: true });
    await emit(vault, [
      {
        instruction: 'update_daily_limit',
        name: 'PolicyUpdated',
        data: { vault, daily_limit: U64_MAX, whitelist_size: 0 },
      },
      { instruction: 'pause_vault', name: 'VaultPaused', data: { vault } },
    ]);
    detail = await getJson(app, url);
    assert.equal(detail.dailyLimit, U64_MAX.toString());
    assert.equal(detail.paused, true);

    const [newSigner, listed] = [randomAddress(), randomAddress()];
    programWrites(vault, { agentSigner: newSigner, whitelist: [listed], whitelistCount: 1, paused: false });
    await emit(vault, [
      {
        instruction: 'update_agent_signer',
        name: 'AgentSignerUpdated',
        data: { vault, old_signer: created.agentSigner, new_signer: newSigner, timestamp: 1n },
      },
      {
        instruction: 'add_to_whitelist',
        name: 'WhitelistUpdated',
        data: { vault, address: listed, added: true, timestamp: 2n },
      },
      { instruction: 'resume_vault', name: 'VaultResumed', data: { vault } },
    ]);
    detail = await getJson(app, url);
    assert.equal(detail.agentSigner, newSigner);
    assert.deepEqual(detail.whitelist, [listed]);
    assert.equal(detail.whitelistCount, 1);
    assert.equal(detail.paused, false);

    // Not the first spend of the day (spent_today ≠ amount): the event alone moves spentToday.
    const paid = randomAddress();
    const executed = await emit(vault, [
      {
        instruction: 'execute_agent',
        name: 'TransactionExecuted',
        data: {
          vault,
          amount: BEYOND_DOUBLE,
          destination: paid,
          fee_collected: BEYOND_DOUBLE,
          new_balance: 0n,
          spent_today: U64_MAX,
        },
      },
    ]);
    const transfer = await getJson(app, `/api/transactions/${executed}`);
    assert.equal(transfer.amount, BEYOND_DOUBLE.toString());
    assert.equal(transfer.destination, paid);
    assert.equal(transfer.status, 'executed');
    detail = await getJson(app, url);
    assert.equal(detail.spentToday, U64_MAX.toString());
    assert.equal(detail.stats.totalVolume, BEYOND_DOUBLE.toString());
    const listedTransfer = (await getJson(app, `/api/transactions?vault=${vault}&status=executed`))
      .transactions[0];
    assert.equal(listedTransfer.feeCollected, BEYOND_DOUBLE.toString());

    // A u64-max amount (its own vault: totals add up).
    const big = await h.fake.createVault({ dailyLimit: SOL });
    await waitForSignatures(h.storage.storage, [big.signature]);
    programWrites(big.vault, { spentToday: U64_MAX });
    const maxed = await emit(big.vault, [
      {
        instruction: 'execute_agent',
        name: 'TransactionExecuted',
        data: {
          vault: big.vault,
          amount: U64_MAX,
          destination: paid,
          fee_collected: 0n,
          new_balance: U64_MAX,
          spent_today: U64_MAX,
        },
      },
    ]);
    assert.equal((await getJson(app, `/api/transactions/${maxed}`)).amount, U64_MAX.toString());
    assert.equal((await getJson(app, `/api/vaults/${big.vault}`)).stats.totalVolume, U64_MAX.toString());
  });

  test('TransactionBlocked, OverrideCreated and OverrideApproved with a u64-max nonce and amount', async () => {
    await h.startLive();
    const app = await h.app();
    const created = await h.fake.createVault({ dailyLimit: SOL, name: 'Ops' });
    const vault = created.vault;
    await waitForSignatures(h.storage.storage, [created.signature]);
    const destination = randomAddress();
    const nonce = U64_MAX;

    await h.emitEvents(vault, [
      {
        instruction: 'execute_agent',
        events: [
          encodeAnchorEvent('TransactionBlocked', {
            vault,
            reason: 1,
            amount: BEYOND_DOUBLE,
            destination,
            override_nonce: nonce,
          }),
        ],
      },
    ]);
    const blocked = (await getJson(app, `/api/transactions?vault=${vault}&status=blocked`)).transactions;
    assert.equal(blocked.length, 1);
    assert.equal(blocked[0].amount, BEYOND_DOUBLE.toString());
    assert.equal(blocked[0].blockReason, 'exceeded_daily_limit');
    const override = async () => {
      const { overrides } = await getJson(app, `/api/overrides?vault=${vault}`);
      assert.equal(overrides.length, 1, 'one override for the one blocked transfer');
      return overrides[0];
    };
    assert.equal((await override()).amount, BEYOND_DOUBLE.toString());
    assert.equal((await override()).status, 'pending');

    const expiresAt = 4_102_444_800n; // 2100-01-01T00:00:00Z
    await h.emitEvents(vault, [
      {
        instruction: 'create_override',
        events: [
          encodeAnchorEvent('OverrideCreated', {
            vault,
            nonce,
            amount: BEYOND_DOUBLE,
            destination,
            expires_at: expiresAt,
          }),
        ],
      },
    ]);
    const pending = await override();
    assert.equal(pending.nonce, nonce.toString());
    assert.equal(pending.expiresAt, '2100-01-01T00:00:00.000Z');

    await h.emitEvents(vault, [
      {
        instruction: 'approve_override',
        events: [encodeAnchorEvent('OverrideApproved', { vault, nonce, timestamp: 3n })],
      },
    ]);
    const approved = await override();
    assert.equal(approved.status, 'approved');
    assert.equal(approved.nonce, nonce.toString());
  });

  test('the treasury events are kept in the raw event log with their exact values', async () => {
    await h.startLive();
    const app = await h.app();
    const created = await h.fake.createVault({ dailyLimit: SOL, name: 'Ops' });
    await waitForSignatures(h.storage.storage, [created.signature]);
    const before = await getJson(app, `/api/vaults/${created.vault}`);
    const [treasury, authority, recipient] = [randomAddress(), randomAddress(), randomAddress()];
    const signature = await h.emitEvents(created.vault, [
      {
        instruction: 'initialize_treasury',
        events: [encodeAnchorEvent('FeeTreasuryInitialized', { treasury, authority, timestamp: I64_MAX })],
      },
      {
        instruction: 'withdraw_fees',
        events: [
          encodeAnchorEvent('FeesWithdrawn', {
            treasury,
            amount: U64_MAX,
            recipient,
            remaining_balance: BEYOND_DOUBLE,
            timestamp: 0n,
          }),
        ],
      },
    ]);
    const stored = await storedEvents(signature);
    assert.deepEqual(
      stored.map((e) => [e.name, e.data]),
      [
        ['FeeTreasuryInitialized', { treasury, authority, timestamp: I64_MAX.toString() }],
        [
          'FeesWithdrawn',
          {
            treasury,
            amount: U64_MAX.toString(),
            recipient,
            remainingBalance: BEYOND_DOUBLE.toString(),
            timestamp: '0',
          },
        ],
      ],
    );
    const after = await getJson(app, `/api/vaults/${created.vault}`);
    assert.deepEqual({ ...after, updatedAt: before.updatedAt }, before, 'no vault field changes');
  });

  test('anchor encodes and decodes every event kind of the IDL', () => {
    const names = (idl.events ?? []).map((event) => event.name).sort();
    assert.equal(names.length, 13);
    assert.deepEqual(names, [...COVERED].sort(), 'the tests above cover every event kind');
  });
});

/** The event kinds the tests above encode with anchor and ingest. */
const COVERED = [
  'VaultCreated',
  'VaultInitialized',
  'PolicyUpdated',
  'VaultPaused',
  'AgentSignerUpdated',
  'WhitelistUpdated',
  'VaultResumed',
  'TransactionExecuted',
  'TransactionBlocked',
  'OverrideCreated',
  'OverrideApproved',
  'FeeTreasuryInitialized',
  'FeesWithdrawn',
];

/** Anchor's plain VaultConfig in the service codec's shape (active whitelist entries, UTF-8 name). */
function fromAnchorVaultConfig(raw: Record<string, unknown>): VaultConfig {
  const count = Number(raw.whitelist_count);
  const nameBytes = (raw.name as number[]).slice(0, Number(raw.name_len));
  return {
    authority: raw.authority as Address,
    agentSigner: raw.agent_signer as Address,
    dailyLimit: raw.daily_limit as bigint,
    spentToday: raw.spent_today as bigint,
    lastReset: raw.last_reset as bigint,
    whitelist: (raw.whitelist as Address[]).slice(0, count),
    whitelistCount: count,
    tier: Object.keys(raw.tier as object)[0]!.toLowerCase() as VaultConfig['tier'],
    feeBasisPoints: raw.fee_basis_points as number,
    name: Buffer.from(nameBytes).toString('utf8'),
    paused: raw.paused as boolean,
    overrideNonce: raw.override_nonce as bigint,
    vaultNonce: raw.vault_nonce as bigint,
    bump: raw.bump as number,
  };
}

describe('account data: anchor and the service codec agree', () => {
  test('VaultConfig and PendingOverride as the validator stores them decode the same both ways', async () => {
    const created = await h.fake.createVault({
      dailyLimit: U64_MAX,
      name: UTF8_NAME,
      tier: 'team',
      nonce: U64_MAX,
    });
    const listed = randomAddress();
    await h.fake.addToWhitelist(created.vault, listed);
    await h.fake.pause(created.vault);
    const override = await h.fake.createOverride(created.vault, {
      destination: randomAddress(),
      amount: BEYOND_DOUBLE,
    });

    const vaultData = await h.accountData(created.vault);
    assert.ok(vaultData);
    const ours = decodeVaultConfig(vaultData);
    const anchors = fromAnchorVaultConfig(plain(coder.accounts.decode('VaultConfig', vaultData)) as never);
    assert.deepEqual(ours, anchors);
    assert.equal(ours.name, UTF8_NAME);
    assert.equal(ours.vaultNonce, U64_MAX);
    assert.deepEqual(ours.whitelist, [listed]);

    const pendingData = await h.accountData(override.pendingOverride);
    assert.ok(pendingData);
    const pending = decodePendingOverride(pendingData);
    const anchorPending = plain(coder.accounts.decode('PendingOverride', pendingData)) as Record<
      string,
      unknown
    >;
    assert.deepEqual(
      {
        vault: pending.vault,
        nonce: pending.nonce,
        instruction_hash: [...pending.instructionHash],
        requested_amount: pending.requestedAmount,
        destination: pending.destination,
        expires_at: pending.expiresAt,
        executed: pending.executed,
        override_type: pending.overrideType === 'exceeded_limit' ? { ExceededLimit: {} } : { Emergency: {} },
        bump: pending.bump,
      },
      anchorPending,
    );
    assert.equal(pending.requestedAmount, BEYOND_DOUBLE);
  });

  test('edge values written by anchor decode in the service codec, and the reverse', async () => {
    const whitelist = Array.from({ length: 20 }, () => randomAddress());
    const name = '東京🚀'.repeat(7).slice(0, 16); // multi-byte, close to the 50-byte limit
    const nameBytes = Buffer.from(name, 'utf8');
    assert.ok(nameBytes.length <= 50);
    const padded = Buffer.alloc(50);
    nameBytes.copy(padded);
    const anchorData = await coder.accounts.encode('VaultConfig', {
      authority: toKey(randomAddress()),
      agent_signer: toKey(randomAddress()),
      daily_limit: u64(U64_MAX),
      spent_today: u64(BEYOND_DOUBLE),
      last_reset: u64(I64_MAX),
      whitelist: whitelist.map(toKey),
      whitelist_count: 20,
      tier: { Enterprise: {} },
      fee_basis_points: 65_535,
      name: [...padded],
      name_len: nameBytes.length,
      paused: true,
      override_nonce: u64(U64_MAX),
      vault_nonce: u64(BEYOND_DOUBLE),
      bump: 255,
    });
    const decoded = decodeVaultConfig(anchorData);
    assert.equal(decoded.name, name);
    assert.equal(decoded.dailyLimit, U64_MAX);
    assert.equal(decoded.lastReset, I64_MAX);
    assert.deepEqual(decoded.whitelist, whitelist);
    assert.equal(decoded.tier, 'enterprise');
    assert.equal(decoded.feeBasisPoints, 65_535);
    const reencoded = encodeVaultConfig(decoded);
    assert.deepEqual(Buffer.from(reencoded), Buffer.from(anchorData), 'the service writes the same bytes');
    assert.deepEqual(
      fromAnchorVaultConfig(plain(coder.accounts.decode('VaultConfig', Buffer.from(reencoded))) as never),
      decoded,
    );

    const pending = {
      vault: randomAddress(),
      nonce: U64_MAX,
      instructionHash: new Uint8Array(32).fill(7),
      requestedAmount: BEYOND_DOUBLE,
      destination: randomAddress(),
      expiresAt: -1n,
      executed: true,
      overrideType: 'emergency' as const,
      bump: 254,
    };
    const ourPending = encodePendingOverride(pending);
    const anchorPending = await coder.accounts.encode('PendingOverride', {
      vault: toKey(pending.vault),
      nonce: u64(pending.nonce),
      instruction_hash: [...pending.instructionHash],
      requested_amount: u64(pending.requestedAmount),
      destination: toKey(pending.destination),
      expires_at: u64(pending.expiresAt),
      executed: true,
      override_type: { Emergency: {} },
      bump: 254,
    });
    assert.deepEqual(Buffer.from(ourPending), Buffer.from(anchorPending));
    assert.deepEqual(decodePendingOverride(anchorPending), pending);
  });
});
