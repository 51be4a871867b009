// DEMO_MODE hands the demo owner's private key to the approval page: before anything starts, every
// configured RPC must serve a ledger of its own (a local test validator), never a public cluster.
import { createSolanaRpc } from '@solana/kit';
import { StartError } from '../lib/start-error.js';

/** The genesis hashes of Solana's public clusters (what getGenesisHash answers on each). */
export const PUBLIC_GENESIS_HASHES: Readonly<Record<string, string>> = {
  '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d': 'mainnet-beta',
  EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG: 'devnet',
  '4uhcVJyU9pJkvQyS88uRDiswHXSCkY3zQawwpjk2NcLQ': 'testnet',
};

const LOOKUP_TIMEOUT_MS = 10_000;
const HINT =
  'run the demo on a local validator (npm run demo starts one), or turn DEMO_MODE off: it hands the owner key to the page';

async function readGenesisHash(rpcUrl: string): Promise<string> {
  return createSolanaRpc(rpcUrl)
    .getGenesisHash()
    .send({ abortSignal: AbortSignal.timeout(LOOKUP_TIMEOUT_MS) });
}

/** Throws a StartError unless every endpoint answers a genesis hash that no public cluster has. */
export async function assertLocalCluster(
  endpoints: readonly { readonly rpcUrl: string }[],
  read: (rpcUrl: string) => Promise<string> = readGenesisHash,
): Promise<void> {
  for (const { rpcUrl } of endpoints) {
    // The host only: RPC URLs carry API keys in their paths and queries.
    const host = new URL(rpcUrl).host;
    let genesisHash: string;
    try {
      genesisHash = await read(rpcUrl);
    } catch (error) {
      throw new StartError(
        `DEMO_MODE could not ask the RPC at ${host} which ledger it serves (getGenesisHash: ${(error as Error).message})`,
        HINT,
      );
    }
    const cluster = PUBLIC_GENESIS_HASHES[genesisHash];
    if (cluster !== undefined) {
      throw new StartError(
        `DEMO_MODE refused: the RPC at ${host} serves ${cluster} (genesis hash ${genesisHash})`,
        HINT,
      );
    }
  }
}
