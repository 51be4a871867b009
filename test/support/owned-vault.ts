// An owner (a test wallet) and a vault it is the authority of, stored as ingestion stores it: the world
// of the wallet-auth and API-key tests.
import { createTestWallet, type TestWallet } from '../../dev/support/wallet.js';
import type { Database } from '../../src/storage/database.js';
import type { VaultRow } from '../../src/storage/schema/index.js';
import { createVault } from './factories.js';

export async function seedOwnedVault(
  db: Database,
  name = 'Before',
): Promise<{ owner: TestWallet; vault: VaultRow }> {
  const owner = createTestWallet();
  const vault = await createVault(db, { authority: owner.address, name });
  return { owner, vault };
}
