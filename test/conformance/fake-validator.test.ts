// The fake validator read back with the service's own decoders: what the fake serves is what the chain code parses.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type Address,
  createSolanaRpc,
  createSolanaRpcSubscriptions,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getTransactionDecoder,
  type Signature,
  signTransaction,
} from '@solana/kit';
import { type FakeValidator, startFakeValidator } from '../../dev/validator/index.js';
import { randomAddress } from '../../dev/validator/scenarios.js';
import { parseVaultConfigAccount } from '../../src/chain/accounts.js';
import {
  buildApproveOverrideInstruction,
  buildCreateOverrideInstruction,
  buildExecuteApprovedOverrideInstruction,
  decodeInstruction,
} from '../../src/chain/instructions.js';
import { parseProgramLogs } from '../../src/chain/log-parser.js';
import { decodeProgramEvent } from '../../src/chain/program-events.js';
import { buildUnsignedTransaction, decodeTransactionBase64 } from '../../src/chain/solana-transactions.js';

async function waitFor<T>(read: () => T | undefined, ms = 3000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = read();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setImmediate(resolve));
  }
}

describe('fake validator through @solana/kit', () => {
  let fv: FakeValidator;
  let rpc: ReturnType<typeof createSolanaRpc>;
  before(async () => {
    fv = await startFakeValidator();
    rpc = createSolanaRpc(fv.rpcUrl);
  });
  after(() => fv.close());

  it('pages getSignaturesForAddress newest first with before / until / limit', async () => {
    const { vault, signatures } = await fv.burst(25, { perSlot: 3 });
    const all: string[] = [];
    let cursor: Signature | undefined;
    for (;;) {
      const page = await rpc.getSignaturesForAddress(vault, { limit: 10, before: cursor }).send();
      if (page.length === 0) break;
      all.push(...page.map((s) => s.signature));
      cursor = page.at(-1)?.signature;
    }
    const expected = fv
      .ledger()
      .filter((e) => e.events.some((ev) => 'data' in ev && 'vault' in ev.data && ev.data.vault === vault));
    assert.deepEqual(all, expected.map((e) => e.signature).reverse());
    assert.deepEqual(all.slice(0, 25), [...signatures].reverse());
    const until = await rpc.getSignaturesForAddress(vault, { until: signatures[19] as Signature }).send();
    assert.deepEqual(
      until.map((s) => s.signature),
      signatures.slice(20).reverse(),
    );
    const first = until[0];
    assert.equal(first?.confirmationStatus, 'finalized');
    assert.equal(first?.err, null);
    assert.equal(typeof first?.blockTime, 'bigint');
    const slots = (await rpc.getSignaturesForAddress(vault, { limit: 25 }).send()).map((s) => s.slot);
    assert.equal(new Set(slots).size, 9, 'three transactions per slot');
  });

  it('serves getTransaction that the chain decoders read back to the scenario values', async () => {
    fv.setTime(1_800_000_000);
    const { vault, depositAddress } = await fv.createVault({ dailyLimit: 10_000_000n, name: 'Ops' });
    await fv.deposit(vault, 5_000_000n);
    const destination = randomAddress();
    const { signature } = await fv.execute(vault, { destination, amount: 1_000_000n });
    const tx = await rpc
      .getTransaction(signature as Signature, {
        encoding: 'json',
        maxSupportedTransactionVersion: 0,
        commitment: 'confirmed',
      })
      .send();
    assert.ok(tx);
    assert.equal(tx.blockTime, 1_800_000_000n);
    assert.equal(tx.meta?.err, null);
    assert.equal(tx.version, 'legacy');
    assert.equal(tx.meta?.fee, 5000n);
    const { events, truncated } = parseProgramLogs(tx.meta?.logMessages ?? [], fv.programId);
    assert.equal(truncated, false);
    assert.equal(events[0]?.instruction, 'ExecuteAgent');
    assert.deepEqual(decodeProgramEvent(events[0]?.bytes ?? new Uint8Array()), {
      name: 'TransactionExecuted',
      data: {
        vault,
        amount: 1_000_000n,
        destination,
        feeCollected: 500n,
        newBalance: 3_999_500n,
        spentToday: 1_000_000n,
      },
    });
    assert.equal((await rpc.getBalance(depositAddress).send()).value, 3_999_500n);
    const b64 = await rpc
      .getTransaction(signature as Signature, { encoding: 'base64', maxSupportedTransactionVersion: 0 })
      .send();
    const decoded = decodeTransactionBase64(b64?.transaction[0] ?? '');
    assert.equal(decoded.signatures[0]?.signature, signature);
    assert.equal(decodeInstruction(decoded.instructions[0]?.data ?? new Uint8Array())?.name, 'execute_agent');
  });

  it('records a blocked attempt as a failed transaction carrying TransactionBlocked', async () => {
    const { vault } = await fv.createVault({ dailyLimit: 1000n });
    const blocked = await fv.block(vault, { amount: 5000n, reason: 'exceeded_daily_limit' });
    assert.equal(blocked.overrideNonce, 0n);
    const tx = await rpc
      .getTransaction(blocked.signature as Signature, { encoding: 'json', maxSupportedTransactionVersion: 0 })
      .send();
    assert.deepEqual(tx?.meta?.err, { InstructionError: [0n, { Custom: 12001n }] });
    assert.ok(tx?.meta?.logMessages?.at(-1)?.endsWith('failed: custom program error: 0x2ee1'));
    const [event] = parseProgramLogs(tx?.meta?.logMessages ?? [], fv.programId).events;
    const decoded = decodeProgramEvent(event?.bytes ?? new Uint8Array());
    assert.equal(decoded.name === 'TransactionBlocked' && decoded.data.overrideNonce, 0n);
    // A failed transaction changes nothing: the announced nonce is still the vault's current one.
    assert.equal(fv.getVault(vault)?.config.overrideNonce, 0n);
  });

  it('answers getSignatureStatuses as a node does: confirmed, then finalized; old ones only from history', async () => {
    const { vault } = await fv.createVault({ dailyLimit: 1000n });
    const landed = await fv.airdrop(randomAddress(), 1_000n);
    const failed = await fv.block(vault, { amount: 5000n, reason: 'exceeded_daily_limit' });
    const unknown = 'x'.repeat(88) as Signature;
    const statuses = async (signatures: string[], searchTransactionHistory?: boolean) =>
      (
        await rpc
          .getSignatureStatuses(
            signatures as Signature[],
            searchTransactionHistory === undefined ? undefined : { searchTransactionHistory },
          )
          .send()
      ).value;
    const [fresh, refused, none] = await statuses([landed.signature, failed.signature, unknown]);
    assert.equal(none, null);
    assert.equal(fresh?.confirmationStatus, 'confirmed');
    assert.equal(typeof fresh?.confirmations, 'bigint');
    assert.equal(fresh?.err, null);
    assert.equal(refused?.slot, BigInt(failed.slot));
    assert.deepEqual(refused?.err, { InstructionError: [0n, { Custom: 12001n }] });

    for (let i = 0; i < 40; i += 1) fv.state.advanceSlot();
    const [rooted] = await statuses([landed.signature]);
    assert.equal(rooted?.confirmationStatus, 'finalized');
    assert.equal(rooted?.confirmations, null);
    // Out of the status cache: only a search of the ledger's history finds it.
    for (let i = 0; i < 300; i += 1) fv.state.advanceSlot();
    assert.deepEqual(await statuses([landed.signature]), [null]);
    assert.deepEqual(await statuses([landed.signature], false), [null]);
    assert.equal((await statuses([landed.signature], true))[0]?.confirmationStatus, 'finalized');
    await assert.rejects(statuses(Array(257).fill(landed.signature)), /Too many inputs provided; max 256/);
  });
  it('serves VaultConfig accounts that parseVaultConfigAccount decodes', async () => {
    const { vault, authority, agentSigner, nonce } = await fv.createVault({
      dailyLimit: 42n,
      name: 'Café',
      tier: 'team',
    });
    await fv.addToWhitelist(vault, agentSigner);
    await fv.pause(vault);
    const { value } = await rpc.getAccountInfo(vault, { encoding: 'base64' }).send();
    assert.ok(value);
    assert.equal(value.space, 809n);
    const data = new Uint8Array(getBase64Encoder().encode(value.data[0]));
    const config = parseVaultConfigAccount({ owner: value.owner, data }, fv.programId);
    assert.equal(config?.authority, authority);
    assert.equal(config?.vaultNonce, nonce);
    assert.equal(config?.name, 'Café');
    assert.equal(config?.tier, 'team');
    assert.equal(config?.paused, true);
    assert.deepEqual(config?.whitelist, [agentSigner]);
    assert.equal((await rpc.getAccountInfo(randomAddress()).send()).value, null);
    const multiple = await rpc.getMultipleAccounts([vault, randomAddress()], { encoding: 'base64' }).send();
    assert.equal(multiple.value[1], null);
  });

  it('notifies logsSubscribe, honours disabled notifications, and drops sockets', async () => {
    const subscriptions = createSolanaRpcSubscriptions(fv.wsUrl);
    const abort = new AbortController();
    const stream = await subscriptions
      .logsNotifications({ mentions: [fv.programId] }, { commitment: 'confirmed' })
      .subscribe({ abortSignal: abort.signal });
    const received: string[] = [];
    const done = (async () => {
      try {
        for await (const note of stream) received.push(note.value.signature);
        return 'ended';
      } catch {
        return 'errored';
      }
    })();
    const { vault, signature } = await fv.createVault({ dailyLimit: 10n });
    await waitFor(() => (received.includes(signature) ? true : undefined));
    fv.setNotificationsEnabled(false);
    const missed = await fv.pause(vault);
    fv.setNotificationsEnabled(true);
    const seen = await fv.resume(vault);
    await waitFor(() => (received.includes(seen.signature) ? true : undefined));
    assert.ok(!received.includes(missed.signature));
    await fv.airdrop(randomAddress(), 5n); // does not mention the program
    fv.dropSockets();
    assert.equal(await done, 'errored');
    assert.equal(received.length, 2);
    abort.abort();
  });

  it('answers 503 during an outage and refuses WebSocket connections', async () => {
    fv.setOutage(true);
    await assert.rejects(rpc.getSlot().send());
    const subscriptions = createSolanaRpcSubscriptions(fv.wsUrl);
    await assert.rejects(
      subscriptions.slotNotifications().subscribe({ abortSignal: new AbortController().signal }),
    );
    fv.setOutage(false);
    assert.equal(typeof (await rpc.getSlot().send()), 'bigint');
    assert.equal(await rpc.getHealth().send(), 'ok');
  });

  it('applies a signed create + approve + execute override transaction sent through sendTransaction', async () => {
    const owner = await generateKeyPairSigner();
    const { vault, nonce: vaultNonce } = await fv.createVault({
      authority: owner.address,
      dailyLimit: 1000n,
    });
    await fv.deposit(vault, 1_000_000n);
    await fv.airdrop(owner.address, 10_000_000n);
    const destination = randomAddress();
    const { overrideNonce } = await fv.block(vault, {
      destination,
      amount: 5000n,
      reason: 'exceeded_daily_limit',
    });
    assert.equal(overrideNonce, 0n);
    const base = { programId: fv.programId, authority: owner.address, vaultNonce, overrideNonce: 0n };
    const instructions = [
      await buildCreateOverrideInstruction({
        ...base,
        destination,
        amount: 5000n,
        reason: 'exceeded_daily_limit',
      }),
      await buildApproveOverrideInstruction(base),
      await buildExecuteApprovedOverrideInstruction({ ...base, destination }),
    ];
    const { value: latestBlockhash } = await rpc.getLatestBlockhash().send();
    const unsigned = buildUnsignedTransaction({
      feePayer: owner.address,
      latestBlockhash,
      instructions,
      computeUnitLimit: 400_000,
    });
    const tx = getTransactionDecoder().decode(getBase64Encoder().encode(unsigned));
    await assert.rejects(
      rpc.sendTransaction(unsigned as never, { encoding: 'base64' }).send(),
      /signature verification/i,
    );
    const signed = getBase64EncodedWireTransaction(await signTransaction([owner.keyPair], tx));
    const signature = await rpc.sendTransaction(signed, { encoding: 'base64' }).send();
    const entry = fv.ledger().find((e) => e.signature === signature);
    assert.equal(entry?.err, null);
    assert.deepEqual(
      entry?.events.map((e) => e.name),
      ['OverrideCreated', 'OverrideApproved', 'TransactionExecuted'],
    );
    const landed = await rpc
      .getTransaction(signature, { encoding: 'json', maxSupportedTransactionVersion: 0 })
      .send();
    const parsed = parseProgramLogs(landed?.meta?.logMessages ?? [], fv.programId).events;
    assert.deepEqual(
      parsed.map((e) => e.instruction),
      ['CreateOverride', 'ApproveOverride', 'ExecuteApprovedOverride'],
    );
    assert.equal(landed?.version, 0);
    assert.equal(fv.balance(destination), 5000n);
    // executing again fails preflight with the program's error
    const again = buildUnsignedTransaction({
      feePayer: owner.address,
      latestBlockhash,
      instructions: instructions.slice(2),
    });
    const againSigned = getBase64EncodedWireTransaction(
      await signTransaction(
        [owner.keyPair],
        getTransactionDecoder().decode(getBase64Encoder().encode(again)),
      ),
    );
    await assert.rejects(
      rpc.sendTransaction(againSigned, { encoding: 'base64' }).send(),
      /0x2ee5|simulation failed/i,
    );
  });

  it('produces forged, unknown, failed-with-events and truncated transactions', async () => {
    const { vault } = await fv.createVault({ dailyLimit: 10n ** 12n });
    await fv.deposit(vault, 10n ** 9n);
    const forged = await fv.forgedEvent({
      name: 'VaultPaused',
      data: { vault },
    });
    const forgedTx = await rpc
      .getTransaction(forged.signature as Signature, { encoding: 'json', maxSupportedTransactionVersion: 0 })
      .send();
    assert.ok(forgedTx?.meta?.logMessages?.some((l) => l.startsWith('Program data: ')));
    assert.equal(parseProgramLogs(forgedTx?.meta?.logMessages ?? [], fv.programId).events.length, 0);
    const unknown = await fv.unknownEvent();
    assert.equal(unknown.events[0]?.name, 'Unknown');
    const failed = await fv.failedWithEvents(vault, { amount: 100n });
    assert.notEqual(failed.err, null);
    assert.deepEqual(
      failed.events.map((e) => e.name),
      ['TransactionExecuted'],
    );
    assert.equal(fv.getVault(vault)?.config.spentToday, 0n, 'rolled back');
    const truncated = await fv.truncatedLogs(vault, { transfers: 3, keepEvents: 1 });
    const truncatedTx = await rpc
      .getTransaction(truncated.signature as Signature, {
        encoding: 'json',
        maxSupportedTransactionVersion: 0,
      })
      .send();
    const parsed = parseProgramLogs(truncatedTx?.meta?.logMessages ?? [], fv.programId);
    assert.equal(parsed.truncated, true);
    assert.equal(parsed.events.length, 1);
    assert.equal(truncated.events.length, 3);
  });

  it('drives scenarios over POST /_control/<method>', async () => {
    const post = async (method: string, args: unknown[]) => {
      const res = await fetch(`${fv.rpcUrl}/_control/${method}`, {
        method: 'POST',
        body: JSON.stringify(args),
      });
      return (await res.json()) as { result?: Record<string, unknown>; error?: string };
    };
    const created = await post('createVault', [{ dailyLimit: '5000', name: 'Remote' }]);
    const vault = created.result?.vault as Address;
    assert.ok(Array.isArray((await post('updateDailyLimit', [vault, 9000])).result?.events));
    assert.equal(fv.getVault(vault)?.config.dailyLimit, 9000n);
    assert.match((await post('execute', [vault, { amount: 1 }])).error ?? '', /InsufficientFunds|failed/);
    const forged = await post('forgedEvent', [{ vault }]);
    const entry = fv.ledger().find((e) => e.signature === forged.result?.signature);
    assert.equal(entry?.events.length, 0, 'the look-alike is not a vault program event');
  });

  it('generates a long history in one burst and pages through it newest first', async () => {
    const { vault, signatures } = await fv.burst(5_000, { perSlot: 4, blockEvery: 10 });
    assert.equal(signatures.length, 5_000);
    const oldest = await rpc
      .getSignaturesForAddress(vault, { before: signatures[1000] as Signature, limit: 1000 })
      .send();
    assert.equal(oldest.length, 1000);
    assert.equal(oldest[0]?.signature, signatures[999]);
  });
});
