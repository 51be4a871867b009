// How many subscriptions may exist: per wallet (small for a wallet that owns no vault), per client
// address and overall for such wallets, and overall. A keypair costs nothing; an indexed vault does.
import { createHash } from 'node:crypto';
import { and, count, eq, isNull, sql } from 'drizzle-orm';
import { AppError } from '../../errors.js';
import type { Tx } from '../../storage/database.js';
import { vaults, webhooks } from '../../storage/schema/index.js';
import { lockKey } from './confirmations.js';

export const WEBHOOK_LIMITS = {
  /** A wallet that owns at least one indexed vault. */
  perOwner: 100,
  /** A wallet that owns none: enough to hear its first `vault.created`, not to amplify. */
  perWalletWithoutVault: 3,
  /** Subscriptions of wallets without a vault created from one client address (IPv4, IPv6 /64). */
  perClientWithoutVault: 10,
  /** Subscriptions of wallets without a vault, all clients together. */
  allWithoutVault: 1_000,
  /** Every subscription of the service. */
  all: 100_000,
} as const;

export type WebhookLimitScope = 'wallet' | 'client' | 'service';

/** The stored form of a client key: never the address itself. */
export function hashClientKey(clientKey: string): string {
  return createHash('sha256').update(clientKey).digest('hex');
}

/** Whether `wallet` is the authority of at least one indexed vault. */
const ownsVault = (wallet: unknown) =>
  sql`exists (select 1 from ${vaults} where ${vaults.authority} = ${wallet})`;

const refuse = (scope: WebhookLimitScope, limit: number, message: string) =>
  new AppError('WEBHOOK_LIMIT_REACHED', message, { scope, limit });

async function countOf(tx: Tx, where: ReturnType<typeof and>): Promise<number> {
  const [row] = await tx.select({ n: count() }).from(webhooks).where(where);
  return row?.n ?? 0;
}

/**
 * Inside the creating transaction: holds the locks that make the caps exact under concurrency and
 * throws 409 WEBHOOK_LIMIT_REACHED when one more subscription of `owner` from `createdFrom` would
 * pass a cap. Creates of one owner queue on its lock; those of wallets without a vault on one lock.
 */
export async function assertRoomForWebhook(tx: Tx, owner: string, createdFrom: string | null): Promise<void> {
  await lockKey(tx, `vaultkeeper:webhooks:${owner}`);
  const [owned] = await tx.select({ owns: sql<boolean>`${ownsVault(owner)}` }).from(sql`(select 1) as one`);
  const hasVault = owned?.owns === true;
  const held = await countOf(tx, eq(webhooks.owner, owner));
  if (hasVault && held >= WEBHOOK_LIMITS.perOwner) {
    throw refuse(
      'wallet',
      WEBHOOK_LIMITS.perOwner,
      `A wallet holds at most ${WEBHOOK_LIMITS.perOwner} webhooks: delete one first`,
    );
  }
  if (!hasVault) await assertRoomWithoutVault(tx, held, createdFrom);
  if ((await countOf(tx, undefined)) >= WEBHOOK_LIMITS.all) {
    throw refuse('service', WEBHOOK_LIMITS.all, 'This service holds as many webhooks as it accepts');
  }
}

async function assertRoomWithoutVault(tx: Tx, held: number, createdFrom: string | null): Promise<void> {
  if (held >= WEBHOOK_LIMITS.perWalletWithoutVault) {
    throw refuse(
      'wallet',
      WEBHOOK_LIMITS.perWalletWithoutVault,
      `A wallet that owns no vault holds at most ${WEBHOOK_LIMITS.perWalletWithoutVault} webhooks: create a vault, or delete one first`,
    );
  }
  await lockKey(tx, 'vaultkeeper:webhooks:without-vault');
  const withoutVault = and(isNull(webhooks.vaultId), sql`not ${ownsVault(webhooks.owner)}`);
  if (createdFrom !== null) {
    const fromClient = await countOf(tx, and(eq(webhooks.createdFrom, createdFrom), withoutVault));
    if (fromClient >= WEBHOOK_LIMITS.perClientWithoutVault) {
      throw refuse(
        'client',
        WEBHOOK_LIMITS.perClientWithoutVault,
        `This address created ${WEBHOOK_LIMITS.perClientWithoutVault} webhooks for wallets that own no vault; no more`,
      );
    }
  }
  if ((await countOf(tx, withoutVault)) >= WEBHOOK_LIMITS.allWithoutVault) {
    throw refuse(
      'service',
      WEBHOOK_LIMITS.allWithoutVault,
      'This service holds as many webhooks of wallets without a vault as it accepts: create a vault first',
    );
  }
}
