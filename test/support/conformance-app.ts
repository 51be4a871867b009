// The app, the real ingestor and the fake validator together, for the conformance suite: requests
// go through the HTTP API, transactions are signed like a wallet and run on the validator.
import assert from 'node:assert/strict';
import type { Address } from '@solana/kit';
import { VersionedTransaction } from '@solana/web3.js';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import type { TestWallet } from '../../dev/support/wallet.js';
import { executeTransaction } from '../../dev/validator/executor.js';
import { randomAddress } from '../../dev/validator/scenarios.js';
import { getInstructionLogName, type InstructionName } from '../../src/chain/program.js';
import { coder, idl, plain } from './idl-conformance.js';
import { BASE_URL, type IngestionHarness, useIngestionHarness } from './ingestion-harness.js';
import { rpcCall } from './json-rpc.js';
import { waitForSignatures } from './wait.js';

export interface ConformanceHarness extends IngestionHarness {
  /** The app on the harness's database and validator (closed after the test). */
  app(): Promise<FastifyInstance>;
  rpc<T>(method: string, params: unknown[]): Promise<T>;
  /** Signs the one signature slot with the wallet (through web3.js), sends it and waits until ingested. */
  signAndSend(transaction: string, wallet: TestWallet): Promise<string>;
  /** An account's data as the validator serves it over RPC, or null when it does not exist. */
  accountData(address: string): Promise<Buffer | null>;
  /**
   * One transaction whose vault-program instructions print these `Program data:` lines (each entry
   * is one instruction, in order, logged under its instruction name); waits until it is ingested.
   */
  emitEvents(vault: string, instructions: { instruction: string; events: string[] }[]): Promise<string>;
  /**
   * Funds the vault, has its agent blocked sending `amount` to `destination` (over the daily
   * limit), waits until it is ingested and returns the path of the override's Blink.
   */
  blockTransfer(
    app: FastifyInstance,
    vault: Address,
    transfer: { destination: Address; amount: bigint },
  ): Promise<{ blinkPath: string; signature: string }>;
  /** An account decoded by anchor's account coder from the IDL, as plain data. */
  anchorAccount(name: 'VaultConfig' | 'PendingOverride', address: string): Promise<Record<string, unknown>>;
}

/** The path and query of a URL the app announced under its public base URL, for app.inject. */
export function localPath(url: string): string {
  const parsed = new URL(url, BASE_URL);
  return parsed.pathname + parsed.search;
}

/**
 * A wallet pressing one of the Blink's buttons: GET the Blink, find the linked action of this
 * type (transaction: approve; message: reject) and POST the account to it (must answer 200).
 */
export async function pressBlinkButton(
  app: FastifyInstance,
  blinkPath: string,
  type: 'transaction' | 'message',
  account: string,
): Promise<{ metadata: LightMyRequestResponse; response: LightMyRequestResponse }> {
  const metadata = await app.inject({ url: blinkPath });
  assert.equal(metadata.statusCode, 200, metadata.body);
  const actions = (metadata.json().links?.actions ?? []) as { type: string; href: string }[];
  const button = actions.find((action) => action.type === type);
  assert.ok(button, `the Blink offers a ${type} action`);
  const response = await app.inject({ method: 'POST', url: localPath(button.href), payload: { account } });
  assert.equal(response.statusCode, 200, response.body);
  return { metadata, response };
}

export function useConformanceHarness(): ConformanceHarness {
  const h = useIngestionHarness();

  const rpc = <T>(method: string, params: unknown[]) => rpcCall<T>(h.fake.rpcUrl, method, params);

  async function accountData(address: string): Promise<Buffer | null> {
    const info = await rpc<{ value: { data: [string, string] } | null }>('getAccountInfo', [
      address,
      { encoding: 'base64', commitment: 'confirmed' },
    ]);
    return info.value === null ? null : Buffer.from(info.value.data[0], 'base64');
  }

  return Object.assign(Object.create(h) as IngestionHarness, {
    async app() {
      // The ingestor's cache, so what it invalidates is what the API reads.
      const { app } = await h.world.start({ cache: h.deps.cache, env: { RATE_LIMIT_ENABLED: 'false' } });
      return app;
    },
    rpc,
    accountData,
    async signAndSend(transaction: string, wallet: TestWallet) {
      const tx = VersionedTransaction.deserialize(Buffer.from(transaction, 'base64'));
      tx.addSignature(tx.message.staticAccountKeys[0]!, wallet.sign(tx.message.serialize()));
      const wire = Buffer.from(tx.serialize()).toString('base64');
      const signature = await rpc<string>('sendTransaction', [wire, { encoding: 'base64' }]);
      await waitForSignatures(h.storage.storage, [signature]);
      return signature;
    },
    async emitEvents(vault: string, instructions: { instruction: string; events: string[] }[]) {
      const { programId } = h.fake;
      const scriptedLogs = new Map(
        instructions.map(({ instruction, events }, i) => [
          i,
          [
            `Program log: Instruction: ${getInstructionLogName(instruction as InstructionName)}`,
            ...events.map((event) => `Program data: ${event}`),
          ],
        ]),
      );
      const txInstructions = instructions.map(({ instruction }) => {
        const ix = idl.instructions.find((entry) => entry.name === instruction);
        assert.ok(ix, `the IDL declares ${instruction}`);
        const accounts = [{ address: vault as Address, isSigner: false, isWritable: true }];
        return { programAddress: programId, accounts, data: new Uint8Array(ix.discriminator) };
      });
      const { record, err } = await executeTransaction(h.fake.state, h.fake.treasury, {
        feePayer: randomAddress(),
        instructions: txInstructions,
        scriptedLogs,
      });
      assert.equal(err, null, record.logs.join('\n'));
      await waitForSignatures(h.storage.storage, [record.signature]);
      return record.signature;
    },
    async blockTransfer(
      app: FastifyInstance,
      vault: Address,
      transfer: { destination: Address; amount: bigint },
    ) {
      await h.fake.deposit(vault, 2n * transfer.amount);
      const blocked = await h.fake.block(vault, { ...transfer, reason: 'exceeded_daily_limit' });
      await waitForSignatures(h.storage.storage, [blocked.signature]);
      const listed = await app.inject({ url: `/api/overrides?vault=${vault}` });
      assert.equal(listed.statusCode, 200, listed.body);
      const mine = (listed.json().overrides as { blinkUrl: string; destination: string }[]).filter(
        (override) => override.destination === transfer.destination,
      );
      assert.equal(mine.length, 1, 'the blocked transfer has one override');
      return { blinkPath: localPath(mine[0]!.blinkUrl), signature: blocked.signature };
    },
    async anchorAccount(name: 'VaultConfig' | 'PendingOverride', address: string) {
      const data = await accountData(address);
      assert.ok(data, `${name} ${address} exists`);
      return plain(coder.accounts.decode(name, data)) as Record<string, unknown>;
    },
  }) as ConformanceHarness;
}
