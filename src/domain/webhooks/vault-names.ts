// The vault's name as a notification shows it: read when the message is built, so a renamed vault shows
// its new name; payloads of transfers carry only the address.
import { sql } from 'drizzle-orm';
import type { Storage } from '../../storage/database.js';
import { type EventContext, findEventVault } from './event-text.js';

export type VaultNameLookup = (address: string) => Promise<string | null>;

export function createVaultNameLookup(storage: Pick<Storage, 'rows'>): VaultNameLookup {
  return async (address) => {
    const rows = await storage.rows<{ name: string }>(
      sql`select name from vaults where address = ${address}`,
    );
    const name = rows[0]?.name ?? '';
    return name === '' ? null : name;
  };
}

/** What a message adds to its payload: the vault's name; nothing when it cannot be read (the address still shows). */
export async function findEventContext(
  payload: string,
  lookup: VaultNameLookup | undefined,
): Promise<EventContext> {
  if (lookup === undefined) return {};
  try {
    const vault = findEventVault(JSON.parse(payload) as { data?: unknown });
    return vault === null ? {} : { vaultName: await lookup(vault) };
  } catch {
    return {};
  }
}
