// Which vault a request acts on, for keys limited to some vaults: a vault named by address or record id,
// or the vault a webhook subscription follows. Asked only when such a key is used.
import { eq } from 'drizzle-orm';
import { isUuid } from '../../lib/uuid.js';
import type { Database } from '../../storage/database.js';
import { vaults, webhooks } from '../../storage/schema/index.js';

export interface KeyVaultResolver {
  /** The vault's address from its address or record id; undefined when there is no such vault. */
  vaultAddressOf(addressOrId: string): Promise<string | undefined>;
  /** The vault a subscription follows (null: every vault of its owner); undefined when there is none. */
  webhookVaultOf(id: string): Promise<string | null | undefined>;
}

export function createKeyVaultResolver(deps: { readonly db: Database }): KeyVaultResolver {
  const { db } = deps;
  return {
    async vaultAddressOf(addressOrId) {
      const column = isUuid(addressOrId) ? vaults.id : vaults.address;
      const [row] = await db.select({ address: vaults.address }).from(vaults).where(eq(column, addressOrId));
      return row?.address;
    },
    async webhookVaultOf(id) {
      if (!isUuid(id)) return undefined;
      const [row] = await db
        .select({ vault: vaults.address })
        .from(webhooks)
        .leftJoin(vaults, eq(vaults.id, webhooks.vaultId))
        .where(eq(webhooks.id, id));
      return row === undefined ? undefined : row.vault;
    },
  };
}
