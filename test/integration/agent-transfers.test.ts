// POST /api/vaults/:address/agent-transfers (build) and …/send (relay) against the fake validator with
// the program's rules and the live ingestor: an allowed transfer executes; one over the limit is blocked
// with the approval's links and the owner approves it through Dialect's Blink client; a paused vault is
// refused before anything is built; anything but this vault's execute_agent signed by its agent is
// refused and never sent; an idempotency key sends once; the client package signs with a Kit signer.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AccountRole, type Address, createKeyPairSignerFromBytes, type Instruction } from '@solana/kit';
import { createVaultkeeperClient, VaultkeeperError } from '@vaultkeeper/client';
import { eq } from 'drizzle-orm';
import { createTestWallet } from '../../dev/support/wallet.js';
import {
  buildUnsignedTransaction,
  type DecodedTransactionInstruction,
  decodeTransactionBase64,
} from '../../src/chain/solana-transactions.js';
import { deleteOldAgentTransferKeys } from '../../src/jobs/cache-cleanup.js';
import { agentTransferRequests } from '../../src/storage/schema/agent-transfers.js';
import { createAgentVault, signAs } from '../support/agent-vault.js';
import { randomAddress } from '../support/factories.js';
import { decide, SOL, useServiceWithIngestor } from '../support/mcp-session.js';

const service = useServiceWithIngestor({ LIVE_ACCOUNTS: 'false' });
const client = () => createVaultkeeperClient({ baseUrl: service.baseUrl });

async function build(vault: string, body: Record<string, unknown>) {
  const res = await service.app.inject({
    method: 'POST',
    url: `/api/vaults/${vault}/agent-transfers`,
    payload: body,
  });
  return { status: res.statusCode, body: res.json() };
}
async function send(vault: string, body: Record<string, unknown>) {
  const res = await service.app.inject({
    method: 'POST',
    url: `/api/vaults/${vault}/agent-transfers/send`,
    payload: body,
  });
  return { status: res.statusCode, body: res.json() };
}
const sends = () =>
  service.h.fake
    .rpcRequests()
    .flatMap((r) => r.methods)
    .filter((m) => m === 'sendTransaction');

describe('agent transfers: build and relay', () => {
  test('an allowed transfer is built for the agent to pay and sign, relayed, and executes with its signature', async () => {
    const { agent, vault } = await createAgentVault(service);
    const destination = randomAddress() as Address;
    const built = await build(vault, { destination, amount: String(SOL / 4n), agent: agent.address });
    assert.equal(built.status, 200, JSON.stringify(built.body));
    assert.deepEqual([built.body.check.verdict, built.body.check.amount], ['allowed', String(SOL / 4n)]);
    assert.match(built.body.lastValidBlockHeight, /^\d+$/);
    const tx = decodeTransactionBase64(built.body.transaction);
    assert.equal(tx.feePayer, agent.address);
    assert.deepEqual(
      tx.signatures.map((s) => [s.address, s.signature]),
      [[agent.address, null]],
      'unsigned, the agent its only signer',
    );
    assert.deepEqual(
      tx.instructions.map((ix) => ix.programAddress),
      [
        'ComputeBudget111111111111111111111111111111',
        'ComputeBudget111111111111111111111111111111',
        service.h.fake.programId,
      ],
    );
    const sent = await send(vault, { transaction: signAs(agent, built.body.transaction) });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.equal(sent.body.status, 'executed');
    assert.equal(
      sent.body.signature,
      decodeTransactionBase64(signAs(agent, built.body.transaction)).signatures[0]?.signature,
    );
    assert.equal(sent.body.approval, undefined);
    assert.equal(service.h.fake.balance(destination), SOL / 4n);
  });

  test('a transfer over the limit comes back blocked with the approval links; the owner approves through the Blink and it executes', async () => {
    const { owner, agent, vault } = await createAgentVault(service);
    const destination = randomAddress() as Address;
    const built = await build(vault, { destination, amount: String(3n * SOL), agent: agent.address });
    assert.equal(built.status, 200, JSON.stringify(built.body));
    assert.deepEqual(
      [built.body.check.verdict, built.body.check.reason],
      ['blocked', 'exceeded_daily_limit'],
    );
    const sent = await send(vault, { transaction: signAs(agent, built.body.transaction) });
    assert.equal(sent.status, 200, JSON.stringify(sent.body));
    assert.equal(sent.body.status, 'blocked');
    assert.equal(sent.body.reason, 'exceeded_daily_limit');
    assert.equal(sent.body.approval.nonce, '0');
    assert.match(sent.body.approval.blinkUrl, new RegExp(`/${vault}/0$`));
    assert.match(sent.body.approval.approvalUrl, /^http:\/\/127\.0\.0\.1:\d+\//);
    assert.equal(service.h.fake.balance(destination), 0n);

    const waiting = client().approvals.wait({ vault, signature: sent.body.signature, timeoutMs: 60_000 });
    await decide(service.h, sent.body.approval.approvalUrl, owner, 'Approve');
    const settled = await waiting;
    assert.ok(['executed', 'approved'].includes(settled.status), settled.status);
    assert.equal(service.h.fake.balance(destination), 3n * SOL);
  });

  test('a paused vault is refused (409 with the check) before anything is built or signed', async () => {
    const { agent, vault } = await createAgentVault(service);
    service.h.fake.setVaultState(vault, { paused: true });
    service.h.fake.resetRpcRequests();
    const built = await build(vault, { destination: randomAddress(), amount: '1000', agent: agent.address });
    assert.equal(built.status, 409);
    assert.equal(built.body.code, 'TRANSFER_REFUSED');
    assert.deepEqual(
      [built.body.details.check.verdict, built.body.details.check.reason],
      ['refused', 'vault_paused'],
    );
    const methods = service.h.fake.rpcRequests().flatMap((r) => r.methods);
    assert.ok(
      !methods.includes('simulateTransaction') && !methods.includes('getLatestBlockhash'),
      methods.join(),
    );
    const wrong = await build(vault, {
      destination: randomAddress(),
      amount: '1000',
      agent: randomAddress(),
    });
    assert.deepEqual([wrong.status, wrong.body.details.check.reason], [409, 'wrong_agent']);
  });

  test("another vault's execute_agent, another key's signature, an unsigned one or a second instruction is refused naming why, and never sent", async () => {
    const first = await createAgentVault(service);
    const second = await createAgentVault(service);
    const destination = randomAddress();
    const built = await build(first.vault, { destination, amount: '1000', agent: first.agent.address });
    const other = await build(second.vault, { destination, amount: '1000', agent: second.agent.address });
    service.h.fake.resetRpcRequests();

    const refusals = [
      [await send(first.vault, { transaction: signAs(second.agent, other.body.transaction) }), /spends from/],
      [
        await send(first.vault, { transaction: signAs(createTestWallet(), built.body.transaction) }),
        /signature is not the agent signer's/,
      ],
      [await send(first.vault, { transaction: built.body.transaction }), /is not signed/],
      [
        await send(first.vault, {
          transaction: signAs(
            first.agent,
            withSecondInstruction(built.body.transaction, first.agent.address),
          ),
        }),
        /exactly one execute_agent/,
      ],
      [
        await send(first.vault, { transaction: 'bm90IGEgdHJhbnNhY3Rpb24=' }),
        /not a base64 Solana wire transaction/,
      ],
    ] as const;
    for (const [answer, reason] of refusals) {
      assert.equal(answer.status, 400, JSON.stringify(answer.body));
      assert.equal(answer.body.code, 'VALIDATION_ERROR');
      assert.match(answer.body.error, /^transaction: /);
      assert.match(answer.body.error, reason);
    }
    assert.deepEqual(sends(), [], 'the validator received no transaction');
  });

  test('the same idempotencyKey twice sends once and answers the first result', async () => {
    const { agent, vault } = await createAgentVault(service);
    const destination = randomAddress() as Address;
    service.h.fake.resetRpcRequests();
    const answers = [];
    for (let i = 0; i < 2; i += 1) {
      // Each retry builds and signs afresh, as an agent retrying after a lost answer would.
      const built = await build(vault, { destination, amount: '5000000', agent: agent.address });
      answers.push(
        await send(vault, { transaction: signAs(agent, built.body.transaction), idempotencyKey: 'order-42' }),
      );
    }
    assert.equal(answers[0]?.status, 200, JSON.stringify(answers[0]?.body));
    assert.deepEqual(answers[1]?.body, answers[0]?.body);
    assert.equal(answers[0]?.body.status, 'executed');
    assert.equal(sends().length, 1);
    assert.equal(service.h.fake.balance(destination), 5_000_000n);
  });

  test('the cleanup job deletes idempotency keys two days old and keeps younger ones', async () => {
    const db = service.h.storage.storage.db;
    const now = new Date();
    const hoursAgo = (hours: number) => new Date(now.getTime() - hours * 3_600_000);
    const agent = randomAddress();
    await db.insert(agentTransferRequests).values(
      [49, 50, 47, 1].map((hours) => ({
        agent,
        idempotencyKey: `key-${hours}`,
        vault: randomAddress(),
        signature: `sig-${hours}`,
        createdAt: hoursAgo(hours),
      })),
    );
    assert.equal(await deleteOldAgentTransferKeys(db, now), 2);
    const kept = await db
      .select({ key: agentTransferRequests.idempotencyKey })
      .from(agentTransferRequests)
      .where(eq(agentTransferRequests.agent, agent));
    assert.deepEqual(kept.map((r) => r.key).sort(), ['key-1', 'key-47']);
  });

  test('client agents.transfer checks, builds, signs with a Kit signer locally and sends; a refusal is TRANSFER_REFUSED', async () => {
    const { agent, vault } = await createAgentVault(service);
    const signer = await createKeyPairSignerFromBytes(agent.secretKey);
    const destination = randomAddress();
    const outcome = await client().agents.transfer({ vault, destination, amount: 2_000_000n, signer });
    assert.deepEqual([outcome.status, outcome.check.verdict], ['executed', 'allowed']);
    assert.equal(service.h.fake.balance(destination as Address), 2_000_000n);
    service.h.fake.setVaultState(vault, { paused: true });
    await assert.rejects(client().agents.transfer({ vault, destination, amount: 1n, signer }), (error) => {
      assert.ok(error instanceof VaultkeeperError);
      assert.equal(error.code, 'TRANSFER_REFUSED');
      return true;
    });
  });
});

/** The same transaction with a system transfer from the agent added after execute_agent. */
function withSecondInstruction(transaction: string, agent: string): string {
  const tx = decodeTransactionBase64(transaction);
  const toKit = (ix: DecodedTransactionInstruction): Instruction => ({
    programAddress: ix.programAddress,
    data: ix.data,
    accounts: ix.accounts.map((meta) => ({
      address: meta.address,
      role: meta.isSigner
        ? meta.isWritable
          ? AccountRole.WRITABLE_SIGNER
          : AccountRole.READONLY_SIGNER
        : meta.isWritable
          ? AccountRole.WRITABLE
          : AccountRole.READONLY,
    })),
  });
  const transfer = new Uint8Array(12);
  transfer[0] = 2;
  new DataView(transfer.buffer).setBigUint64(4, 1n, true);
  const extra: Instruction = {
    programAddress: '11111111111111111111111111111111' as Address,
    data: transfer,
    accounts: [
      { address: agent as Address, role: AccountRole.WRITABLE_SIGNER },
      { address: randomAddress() as Address, role: AccountRole.WRITABLE },
    ],
  };
  return buildUnsignedTransaction({
    feePayer: agent as Address,
    latestBlockhash: { blockhash: tx.blockhash, lastValidBlockHeight: 0n },
    instructions: [...tx.instructions.map(toKit), extra],
  });
}
