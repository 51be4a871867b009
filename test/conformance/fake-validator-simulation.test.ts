// The fake validator read back with the service's own decoders: what the fake serves is what the chain code parses.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import {
  type Address,
  createSolanaRpc,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getTransactionDecoder,
  type Instruction,
  type KeyPairSigner,
  signTransaction,
} from '@solana/kit';
import {
  countSequentialRoundTrips,
  type FakeValidator,
  startFakeValidator,
} from '../../dev/validator/index.js';
import { randomAddress } from '../../dev/validator/scenarios.js';
import {
  buildApproveOverrideInstruction,
  buildCreateOverrideInstruction,
  buildExecuteApprovedOverrideInstruction,
} from '../../src/chain/instructions.js';
import { buildUnsignedTransaction } from '../../src/chain/solana-transactions.js';

/** simulateTransaction, compute budget, fee payer checks and prioritization fees, through @solana/kit. */

const SOL = 1_000_000_000n;
let fv: FakeValidator;
let rpc: ReturnType<typeof createSolanaRpc>;

before(async () => {
  fv = await startFakeValidator();
  rpc = createSolanaRpc(fv.rpcUrl);
});
after(() => fv.close());
beforeEach(() => fv.setLatency(0));

type Approval = {
  owner: KeyPairSigner;
  vault: Address;
  depositAddress: Address;
  destination: Address;
  instructions: Instruction[];
};

/** A blocked 2 SOL transfer and the create + approve + execute instructions that pay it out. */
async function approval(opts: { deposit?: bigint; ownerLamports?: bigint } = {}): Promise<Approval> {
  const owner = await generateKeyPairSigner();
  const {
    vault,
    nonce: vaultNonce,
    depositAddress,
  } = await fv.createVault({ authority: owner.address, dailyLimit: SOL });
  await fv.deposit(vault, opts.deposit ?? 10n * SOL);
  if (opts.ownerLamports !== 0n) await fv.airdrop(owner.address, opts.ownerLamports ?? SOL);
  const destination = randomAddress();
  await fv.block(vault, { destination, amount: 2n * SOL, reason: 'exceeded_daily_limit' });
  const base = { programId: fv.programId, authority: owner.address, vaultNonce, overrideNonce: 0n };
  const instructions = [
    await buildCreateOverrideInstruction({
      ...base,
      destination,
      amount: 2n * SOL,
      reason: 'exceeded_daily_limit',
    }),
    await buildApproveOverrideInstruction(base),
    await buildExecuteApprovedOverrideInstruction({ ...base, destination }),
  ];
  return { owner, vault, depositAddress, destination, instructions };
}

async function wire(a: Approval, budget: { computeUnitLimit?: number; computeUnitPrice?: bigint } = {}) {
  const { value: latestBlockhash } = await rpc.getLatestBlockhash().send();
  return buildUnsignedTransaction({
    feePayer: a.owner.address,
    latestBlockhash,
    instructions: a.instructions,
    ...budget,
  });
}

async function send(a: Approval, unsigned: string) {
  const tx = getTransactionDecoder().decode(getBase64Encoder().encode(unsigned));
  const signed = getBase64EncodedWireTransaction(await signTransaction([a.owner.keyPair], tx));
  return rpc.sendTransaction(signed, { encoding: 'base64', skipPreflight: true }).send();
}

/** kit reads every JSON number as a bigint; errors compare in plain numbers. */
const plain = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? Number(v) : v)));

const simulate = (unsigned: string, addresses: Address[] = []) =>
  rpc
    .simulateTransaction(unsigned as never, {
      encoding: 'base64',
      sigVerify: false,
      replaceRecentBlockhash: true,
      ...(addresses.length > 0 ? { accounts: { addresses, encoding: 'base64' } } : {}),
    })
    .send();

describe('simulateTransaction', () => {
  it('runs on a copy of the ledger and predicts the real run: units, post-state balances, fee', async () => {
    const a = await approval();
    const unsigned = await wire(a, { computeUnitLimit: 1_400_000, computeUnitPrice: 1_000n });
    const watched = [a.owner.address, a.depositAddress, a.destination, fv.treasury];
    const before = watched.map((w) => fv.balance(w));
    const { value } = await simulate(unsigned, watched);
    assert.equal(value.err, null, value.logs?.join('\n'));
    assert.deepEqual(
      watched.map((w) => fv.balance(w)),
      before,
      'the ledger is unchanged',
    );
    assert.ok(value.replacementBlockhash?.blockhash, 'replacementBlockhash when replaceRecentBlockhash');
    const simulated = (value.accounts ?? []).map(
      (acc) => (acc as { lamports: bigint } | null)?.lamports ?? 0n,
    );

    const signature = await send(a, unsigned);
    const landed = await rpc
      .getTransaction(signature, { maxSupportedTransactionVersion: 0, encoding: 'json' })
      .send();
    assert.equal(landed?.meta?.err, null);
    assert.equal(landed?.meta?.computeUnitsConsumed, value.unitsConsumed);
    // The post-state shows the fee payer's fee gone, as the real run then charges it.
    const fee = 5000n + (1_000n * 1_400_000n) / 1_000_000n;
    assert.equal(landed?.meta?.fee, fee);
    assert.equal(before[0]! - simulated[0]!, fee + 1_802_640n, 'fee plus the override account rent');
    assert.deepEqual(
      watched.map((w) => fv.balance(w)),
      simulated,
    );
    assert.equal(fv.balance(a.destination), 2n * SOL);
  });

  it('answers a failing program in the RPC shape: InstructionError with the custom code and logs', async () => {
    const a = await approval({ deposit: SOL });
    const { value } = await simulate(await wire(a));
    assert.deepEqual(plain(value.err), { InstructionError: [2, { Custom: 12008 }] });
    assert.ok(value.logs?.some((l) => l.includes('Error Code: InsufficientFunds. Error Number: 12008')));
    assert.ok(Number(value.unitsConsumed) > 0);
  });

  it('refuses a fee payer that does not exist or cannot pay the fee, before running anything', async () => {
    const missing = await approval({ ownerLamports: 0n });
    assert.equal((await simulate(await wire(missing))).value.err, 'AccountNotFound');
    const poor = await approval({ ownerLamports: 4_000n });
    assert.equal((await simulate(await wire(poor))).value.err, 'InsufficientFundsForFee');
    await assert.rejects(
      rpc.sendTransaction((await wire(poor)) as never, { encoding: 'base64' }).send(),
      /signature verification|Insufficient funds for fee/,
    );
  });

  it("fails a paused vault's approved transfer with VaultPaused", async () => {
    const a = await approval();
    await fv.pause(a.vault);
    const { value } = await simulate(await wire(a));
    assert.deepEqual(plain(value.err), { InstructionError: [2, { Custom: 12002 }] });
  });

  it('rejects sigVerify together with replaceRecentBlockhash, as the node does', async () => {
    const a = await approval();
    await assert.rejects(
      rpc
        .simulateTransaction((await wire(a)) as never, <never>{
          encoding: 'base64',
          sigVerify: true,
          replaceRecentBlockhash: true,
        })
        .send(),
      /sigVerify may not be used with replaceRecentBlockhash/,
    );
  });
});

describe('compute budget', () => {
  it('enforces SetComputeUnitLimit: a limit below the consumption fails with ComputationalBudgetExceeded', async () => {
    const a = await approval();
    // Measured with the same instructions: the limit instruction costs units of its own.
    const { value } = await simulate(await wire(a, { computeUnitLimit: 1_400_000 }));
    const used = Number(value.unitsConsumed);
    const tight = await simulate(await wire(a, { computeUnitLimit: used - 1 }));
    assert.deepEqual(plain(tight.value.err), { InstructionError: [3, 'ComputationalBudgetExceeded'] });
    assert.equal(Number(tight.value.unitsConsumed), used - 1);
    const exact = await simulate(await wire(a, { computeUnitLimit: used }));
    assert.equal(exact.value.err, null);
  });
});

describe('getRecentPrioritizationFees', () => {
  it('answers the scripted fees per slot, the highest among the accounts asked about', async () => {
    const [x, y] = [randomAddress(), randomAddress()];
    fv.setPrioritizationFees([0, 10, 20]);
    fv.setPrioritizationFees([5, 50], [x]);
    fv.setPrioritizationFees([7, 0, 1], [y]);
    const global = await rpc.getRecentPrioritizationFees().send();
    assert.deepEqual(
      global.map((f) => f.prioritizationFee),
      [0n, 10n, 20n],
    );
    const both = await rpc.getRecentPrioritizationFees([x, y]).send();
    assert.deepEqual(
      both.map((f) => f.prioritizationFee),
      [7n, 5n, 50n],
    );
    assert.ok(both.every((f, i) => i === 0 || f.slot === (both[i - 1]?.slot ?? 0n) + 1n));
  });

  it('fails a method on demand and counts overlapping requests as one round trip', async () => {
    fv.failMethod('getRecentPrioritizationFees', 'http');
    await assert.rejects(rpc.getRecentPrioritizationFees().send());
    fv.failMethod('getRecentPrioritizationFees', null);
    fv.setLatency(20);
    fv.resetRpcRequests();
    await Promise.all([rpc.getSlot().send(), rpc.getLatestBlockhash().send()]);
    await rpc.getSlot().send();
    assert.equal(countSequentialRoundTrips(fv.rpcRequests()), 2);
  });
});
