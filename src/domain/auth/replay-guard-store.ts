// The replay guard's database fallback: one row per signature claimed while Redis was unreachable.
import { lt, max } from 'drizzle-orm';
import type { Storage } from '../../storage/database.js';
import { authClaims } from '../../storage/schema/index.js';

/** Claims every instance sharing the database sees; each key is inserted at most once. */
export interface ClaimStore {
  /** Stores the key unless it is present (expired or not); true when this call stored it. */
  claim(key: string, expiresAt: Date): Promise<boolean>;
  /** The latest expiry of any stored claim, or null when there is none. */
  latestExpiry(): Promise<Date | null>;
  /** Deletes claims that expired before `now`; returns how many. */
  purgeExpired(now: Date): Promise<number>;
}

export function createDatabaseClaimStore(storage: Pick<Storage, 'db'>): ClaimStore {
  const { db } = storage;
  return {
    async claim(key, expiresAt) {
      // ON CONFLICT DO NOTHING: of two instances inserting one key at once, exactly one gets the row back.
      const inserted = await db
        .insert(authClaims)
        .values({ key, expiresAt })
        .onConflictDoNothing()
        .returning({ key: authClaims.key });
      return inserted.length === 1;
    },
    async latestExpiry() {
      const [row] = await db.select({ latest: max(authClaims.expiresAt) }).from(authClaims);
      return row?.latest ?? null;
    },
    async purgeExpired(now) {
      const deleted = await db
        .delete(authClaims)
        .where(lt(authClaims.expiresAt, now))
        .returning({ key: authClaims.key });
      return deleted.length;
    },
  };
}
