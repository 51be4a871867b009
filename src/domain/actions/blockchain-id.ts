// The CAIP-2 chain id Solana Actions clients read from X-Blockchain-Ids (and SignMessageData.chainId).
import type { SolanaCluster } from '../../config.js';

/** `solana:` + the first 32 characters of the cluster's genesis hash. */
export const KNOWN_BLOCKCHAIN_IDS = {
  devnet: 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
  'mainnet-beta': 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
  testnet: 'solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z',
} as const;

/** After a failed genesis lookup, localnet answers devnet's id and asks again only after this long. */
const RETRY_AFTER_MS = 60_000;
const LOOKUP_TIMEOUT_MS = 2_000;

export interface BlockchainIdSource {
  get(): Promise<string>;
}

export function toBlockchainId(genesisHash: string): string {
  return `solana:${genesisHash.slice(0, 32)}`;
}

/**
 * Fixed ids for the public clusters. A localnet has its own genesis: read it once with
 * getGenesisHash and keep it; while the node does not answer, fall back to devnet's id (what a
 * local test validator mimics) so that Action responses never wait on or fail with the RPC.
 */
export function createBlockchainIdSource(input: {
  cluster: SolanaCluster;
  getGenesisHash: (signal: AbortSignal) => Promise<string>;
  now?: () => number;
}): BlockchainIdSource {
  if (input.cluster !== 'localnet') {
    const fixed = KNOWN_BLOCKCHAIN_IDS[input.cluster];
    return { get: async () => fixed };
  }
  const now = input.now ?? Date.now;
  let resolved: string | null = null;
  let inFlight: Promise<string> | null = null;
  let retryAt = 0;
  return {
    async get() {
      if (resolved !== null) return resolved;
      if (inFlight !== null) return inFlight;
      if (now() < retryAt) return KNOWN_BLOCKCHAIN_IDS.devnet;
      inFlight = input
        .getGenesisHash(AbortSignal.timeout(LOOKUP_TIMEOUT_MS))
        .then((hash) => {
          resolved = toBlockchainId(hash);
          return resolved;
        })
        .catch(() => {
          retryAt = now() + RETRY_AFTER_MS;
          return KNOWN_BLOCKCHAIN_IDS.devnet;
        })
        .finally(() => {
          inFlight = null;
        });
      return inFlight;
    },
  };
}
