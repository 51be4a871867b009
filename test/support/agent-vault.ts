// A vault whose agent key the test holds: created on the fake validator with a 1 SOL daily limit and
// 100 SOL, the owner and the agent funded for fees, and ingested by the service before it is used.
import type { Address } from '@solana/kit';
import { createTestWallet, type TestWallet } from '../../dev/support/wallet.js';
import { decodeTransactionBase64 } from '../../src/chain/solana-transactions.js';
import type { Service } from './mcp-session.js';
import { SOL } from './mcp-session.js';
import { waitFor } from './wait.js';

export interface AgentVault {
  owner: TestWallet;
  agent: TestWallet;
  vault: Address;
}

export async function createAgentVault(service: Service): Promise<AgentVault> {
  const owner = createTestWallet();
  const agent = createTestWallet();
  const { fake } = service.h;
  const created = await fake.createVault({
    authority: owner.address as Address,
    agentSigner: agent.address as Address,
    dailyLimit: SOL,
    name: 'Agent',
  });
  await fake.deposit(created.vault, 100n * SOL);
  await fake.airdrop(owner.address as Address, SOL);
  await fake.airdrop(agent.address as Address, SOL);
  await waitFor(
    async () => (await service.app.inject({ url: `/api/vaults/${created.vault}` })).statusCode === 200,
    { message: 'the vault ingested' },
  );
  return { owner, agent, vault: created.vault };
}

/** A wire transaction (base64) with its only signature slot filled by `wallet`. */
export function signAs(wallet: TestWallet, transaction: string): string {
  const wire = Buffer.from(transaction, 'base64');
  wire.set(wallet.sign(decodeTransactionBase64(transaction).messageBytes), 1);
  return wire.toString('base64');
}
