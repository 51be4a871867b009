// Cache tags: readers tag what they store, ingestion evicts by tag after it commits.

/** Everything about one vault: detail, its transaction/override lists, its analytics. */
export const vaultTag = (vaultAddress: string) => `vault:${vaultAddress}`;
/** Lists and aggregates that span vaults (vault lists, unfiltered transactions, global analytics). */
export const CROSS_VAULT_TAG = 'cross-vault';

/** Cache lifetimes in seconds (docs/API.md, Caching). */
export const CACHE_TTL = { vault: 300, transactionList: 30, analytics: 300 } as const;

/** Evicts every cached read an event about these vaults could have changed. */
export async function evictVaults(
  cache: { deleteByTag(...tags: string[]): Promise<void> },
  vaultAddresses: Iterable<string>,
) {
  await cache.deleteByTag(...[...new Set(vaultAddresses)].map(vaultTag), CROSS_VAULT_TAG);
}
