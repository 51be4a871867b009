// Types of vault-report.mjs, for the tests that run the example.
import type { VaultkeeperClient } from '@vaultkeeper/client';

export function report(
  client: VaultkeeperClient,
  owner: string,
  options?: { signal?: AbortSignal },
): Promise<string[]>;
