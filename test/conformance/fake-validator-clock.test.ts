// The fake validator read back with the service's own decoders: what the fake serves is what the chain code parses.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Address, createSolanaRpc, createSolanaRpcSubscriptions } from '@solana/kit';
import { type FakeValidator, startFakeValidator } from '../../dev/validator/index.js';
import { randomAddress } from '../../dev/validator/scenarios.js';
import { parseVaultConfigAccount } from '../../src/chain/accounts.js';
import { CLOCK_SYSVAR_ADDRESS, parseClockSysvarAccount } from '../../src/chain/clock-sysvar.js';
import { waitFor } from '../support/wait.js';

const T0 = 1_800_000_000;
const bytes = (data: readonly [string, string]) => new Uint8Array(Buffer.from(data[0], 'base64'));

async function rawRpc(fv: FakeValidator, method: string, params: unknown[]) {
  const response = await fetch(fv.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  return ((await response.json()) as { result: Record<string, unknown> }).result;
}

describe('the fake validator serves the Clock sysvar and account subscriptions as a real node does', () => {
  let fv: FakeValidator;
  const rpc = () => createSolanaRpc(fv.rpcUrl);
  before(async () => {
    fv = await startFakeValidator();
  });
  after(() => fv.close());

  it('answers getMultipleAccounts with the Clock account in the RPC shape, of the answer slot and the set block time', async () => {
    fv.setTime(T0);
    const { vault } = await fv.createVault({ dailyLimit: 10n });
    const result = await rawRpc(fv, 'getMultipleAccounts', [
      [vault, randomAddress(), CLOCK_SYSVAR_ADDRESS],
      { commitment: 'confirmed', encoding: 'base64' },
    ]);
    const context = result.context as { apiVersion: string; slot: number };
    assert.equal(typeof context.apiVersion, 'string');
    const [config, missing, clock] = result.value as Record<string, unknown>[];
    assert.equal(missing, null);
    assert.ok(config);
    assert.deepEqual(Object.keys(clock ?? {}).sort(), [
      'data',
      'executable',
      'lamports',
      'owner',
      'rentEpoch',
      'space',
    ]);
    assert.equal(clock?.owner, 'Sysvar1111111111111111111111111111111111111');
    assert.equal(clock?.lamports, 1_169_280);
    assert.equal(clock?.space, 40);
    assert.equal(clock?.executable, false);
    const decoded = parseClockSysvarAccount({
      owner: clock?.owner as Address,
      data: bytes(clock?.data as [string, string]),
    });
    assert.equal(decoded.slot, BigInt(context.slot));
    assert.equal(decoded.unixTimestamp, BigInt(T0));
    assert.equal(decoded.leaderScheduleEpoch, decoded.epoch + 1n);
  });

  it('moves the Clock to a new slot whenever the block time is set or advanced, as transactions then see it', async () => {
    fv.setTime(T0 + 100);
    const before = await rpc().getAccountInfo(CLOCK_SYSVAR_ADDRESS, { encoding: 'base64' }).send();
    fv.advanceTime(86_400);
    const after = await rpc().getAccountInfo(CLOCK_SYSVAR_ADDRESS, { encoding: 'base64' }).send();
    const clockOf = (r: typeof before) =>
      parseClockSysvarAccount({ owner: r.value!.owner, data: bytes(r.value!.data) });
    assert.equal(clockOf(before).unixTimestamp, BigInt(T0 + 100));
    assert.equal(clockOf(after).unixTimestamp, BigInt(T0 + 100 + 86_400));
    assert.ok(after.context.slot > before.context.slot);
    const { slot } = await fv.createVault({ dailyLimit: 10n });
    const entry = fv.ledger().find((e) => e.slot === slot);
    assert.equal(entry?.blockTime, T0 + 100 + 86_400, 'the next block is at the Clock time');
  });

  it('follows the wall clock when no time is set: a read makes the slot of the current second', async () => {
    const wall = await startFakeValidator();
    try {
      const { value } = await createSolanaRpc(wall.rpcUrl)
        .getAccountInfo(CLOCK_SYSVAR_ADDRESS, { encoding: 'base64' })
        .send();
      const seconds = parseClockSysvarAccount({
        owner: value!.owner,
        data: bytes(value!.data),
      }).unixTimestamp;
      const now = BigInt(Math.floor(Date.now() / 1000));
      assert.ok(seconds === now || seconds === now - 1n, `${seconds} vs ${now}`);
    } finally {
      await wall.close();
    }
  });

  it('notifies account changes in the accountNotification shape: a vault, its deposit address and the Clock', async () => {
    fv.setTime(T0 + 200_000);
    const created = await fv.createVault({ dailyLimit: 1_000_000n, feeBasisPoints: 0 });
    await fv.deposit(created.vault, 500_000n);
    const subscriptions = createSolanaRpcSubscriptions(fv.wsUrl);
    const abort = new AbortController();
    const config = { commitment: 'confirmed', encoding: 'base64' } as const;
    const seen: {
      what: string;
      slot: bigint;
      value: { lamports: bigint; owner: string; data: [string, string] };
    }[] = [];
    const follow = async (what: string, address: Address) => {
      const stream = await subscriptions
        .accountNotifications(address, config)
        .subscribe({ abortSignal: abort.signal });
      void (async () => {
        try {
          for await (const n of stream) seen.push({ what, slot: n.context.slot, value: n.value as never });
        } catch {}
      })();
    };
    await Promise.all([
      follow('vault', created.vault),
      follow('deposit', created.depositAddress),
      follow('clock', CLOCK_SYSVAR_ADDRESS),
    ]);

    const transfer = await fv.execute(created.vault, { amount: 100_000n, enforcePolicy: true });
    assert.equal(transfer.err, null);
    await waitFor(() => seen.some((n) => n.what === 'deposit') && seen.some((n) => n.what === 'vault'));
    const vault = seen.find((n) => n.what === 'vault')!;
    assert.equal(vault.slot, BigInt(transfer.slot));
    assert.equal(
      parseVaultConfigAccount(
        { owner: vault.value.owner as Address, data: bytes(vault.value.data) },
        fv.programId,
      )?.spentToday,
      100_000n,
    );
    assert.equal(seen.find((n) => n.what === 'deposit')!.value.lamports, 400_000n);
    assert.ok(seen.some((n) => n.what === 'clock' && n.slot === BigInt(transfer.slot)));

    // A transfer the program fails changes neither account: nothing is notified for them.
    seen.length = 0;
    const failed = await fv.execute(created.vault, { amount: 10_000_000n, enforcePolicy: true });
    assert.notEqual(failed.err, null);
    fv.setVaultState(created.vault, { paused: true });
    await waitFor(() => seen.some((n) => n.what === 'vault'));
    assert.deepEqual(
      seen.filter((n) => n.what !== 'clock').map((n) => n.what),
      ['vault'],
      'only the rewritten vault account, never an unchanged one',
    );
    abort.abort();
  });
});
