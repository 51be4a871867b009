// Subscriptions: create, read, change, delete and rotate secrets; always scoped to the signing owner.
import { and, count, desc, eq, sql } from 'drizzle-orm';
import { AppError, validationError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { Database } from '../../storage/database.js';
import { vaults, type WebhookRow, webhooks } from '../../storage/schema/index.js';
import { assertVaultOwner } from '../auth/ownership.js';
import type { WebhookEvent } from './events.js';
import { generateWebhookSecret } from './signatures.js';
import { parseSubscriptionUrl, type UrlPolicy } from './subscription-url.js';

export const MAX_WEBHOOKS_PER_OWNER = 100;
/** How long the secret before a rotation keeps signing alongside the new one. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

export interface Webhook {
  id: string;
  url: string;
  events: string[];
  vault: string | null;
  active: boolean;
  disabledReason: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface WebhookWithSecret extends Webhook {
  secret: string;
}

export interface WebhookServiceDeps {
  readonly db: Database;
  readonly clock: Clock;
  readonly urlPolicy: UrlPolicy;
}

export interface PageQuery {
  page?: number | undefined;
  limit?: number | undefined;
}

export interface Page {
  page: number;
  limit: number;
}

export function resolvePage(query: PageQuery): Page {
  return { page: query.page ?? 1, limit: query.limit ?? 50 };
}

export function paginationOf(page: Page, total: number) {
  return { page: page.page, limit: page.limit, total, pages: Math.ceil(total / page.limit) };
}

type OwnedRow = WebhookRow & { vaultAddress: string | null };

export function toWebhook(row: OwnedRow): Webhook {
  return {
    id: row.id,
    url: row.url,
    events: row.events,
    vault: row.vaultAddress,
    active: row.active,
    disabledReason: row.disabledReason,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function createWebhookService(deps: WebhookServiceDeps) {
  const { db, clock } = deps;
  const selection = { webhook: webhooks, vaultAddress: vaults.address };
  const withVault = () =>
    db.select(selection).from(webhooks).leftJoin(vaults, eq(vaults.id, webhooks.vaultId));
  const flatten = (r: { webhook: WebhookRow; vaultAddress: string | null }): OwnedRow => ({
    ...r.webhook,
    vaultAddress: r.vaultAddress,
  });

  /** The subscription when `owner` owns it: 404 when unknown, 403 when someone else's. */
  async function findOwned(owner: string, id: string): Promise<OwnedRow> {
    const [row] = await withVault().where(eq(webhooks.id, id)).limit(1);
    if (row === undefined) throw new AppError('WEBHOOK_NOT_FOUND', 'Webhook not found', { id });
    if (row.webhook.owner !== owner) {
      throw new AppError('FORBIDDEN', 'Only the owner of this webhook may use it', { reason: 'not_owner' });
    }
    return flatten(row);
  }

  async function findVaultOwnedBy(owner: string, address: string): Promise<{ id: string; address: string }> {
    const [vault] = await db
      .select({ id: vaults.id, address: vaults.address, authority: vaults.authority })
      .from(vaults)
      .where(eq(vaults.address, address))
      .limit(1);
    if (vault === undefined) throw new AppError('VAULT_NOT_FOUND', 'Vault not found', { vault: address });
    assertVaultOwner(owner, vault.authority);
    return vault;
  }

  return {
    findOwned,

    async createWebhook(
      owner: string,
      input: { url: string; events: readonly WebhookEvent[]; vault?: string | undefined },
    ): Promise<WebhookWithSecret> {
      const url = parseSubscriptionUrl(input.url, deps.urlPolicy);
      const vault = input.vault === undefined ? null : await findVaultOwnedBy(owner, input.vault);
      const [existing] = await db.select({ n: count() }).from(webhooks).where(eq(webhooks.owner, owner));
      if ((existing?.n ?? 0) >= MAX_WEBHOOKS_PER_OWNER) {
        throw validationError(
          [{ path: 'body', message: `an owner may have at most ${MAX_WEBHOOKS_PER_OWNER} webhooks` }],
          'Too many webhooks',
        );
      }
      const now = clock.now();
      const secret = generateWebhookSecret();
      const [row] = await db
        .insert(webhooks)
        .values({
          owner,
          vaultId: vault?.id ?? null,
          url,
          events: [...new Set(input.events)],
          secret,
          createdAt: now,
          updatedAt: now,
        })
        .returning();
      return { ...toWebhook({ ...row!, vaultAddress: vault?.address ?? null }), secret };
    },

    async listWebhooks(
      owner: string,
      query: PageQuery,
    ): Promise<{ webhooks: Webhook[]; pagination: ReturnType<typeof paginationOf> }> {
      const page = resolvePage(query);
      const [total] = await db.select({ n: count() }).from(webhooks).where(eq(webhooks.owner, owner));
      const rows = await withVault()
        .where(eq(webhooks.owner, owner))
        .orderBy(desc(webhooks.createdAt), desc(webhooks.id))
        .limit(page.limit)
        .offset((page.page - 1) * page.limit);
      return {
        webhooks: rows.map((r) => toWebhook(flatten(r))),
        pagination: paginationOf(page, total?.n ?? 0),
      };
    },

    async getWebhook(owner: string, id: string): Promise<Webhook> {
      return toWebhook(await findOwned(owner, id));
    },

    /** Changes url, events or active; re-enabling clears the failure record that disabled it. */
    async updateWebhook(
      owner: string,
      id: string,
      input: {
        url?: string | undefined;
        events?: readonly WebhookEvent[] | undefined;
        active?: boolean | undefined;
      },
    ): Promise<Webhook> {
      const current = await findOwned(owner, id);
      if (input.url === undefined && input.events === undefined && input.active === undefined) {
        throw validationError([{ path: 'body', message: 'give at least one of url, events, active' }]);
      }
      const changes: Partial<typeof webhooks.$inferInsert> = { updatedAt: clock.now() };
      if (input.url !== undefined) changes.url = parseSubscriptionUrl(input.url, deps.urlPolicy);
      if (input.events !== undefined) changes.events = [...new Set(input.events)];
      if (input.active === true && !current.active) {
        Object.assign(changes, { active: true, disabledReason: null, failingSince: null });
      } else if (input.active === false && current.active) {
        Object.assign(changes, { active: false, disabledReason: 'disabled by owner' });
      }
      const [row] = await db.update(webhooks).set(changes).where(eq(webhooks.id, id)).returning();
      return toWebhook({ ...row!, vaultAddress: current.vaultAddress });
    },

    async deleteWebhook(owner: string, id: string): Promise<void> {
      await findOwned(owner, id);
      await db.delete(webhooks).where(and(eq(webhooks.id, id), eq(webhooks.owner, owner)));
    },

    /** A new secret, shown once; the previous one keeps signing for SECRET_OVERLAP_MS. */
    async rotateSecret(owner: string, id: string): Promise<WebhookWithSecret> {
      const current = await findOwned(owner, id);
      const now = clock.now();
      const secret = generateWebhookSecret();
      const [row] = await db
        .update(webhooks)
        .set({
          previousSecret: sql`${webhooks.secret}`,
          previousSecretExpiresAt: new Date(now.getTime() + SECRET_OVERLAP_MS),
          secret,
          updatedAt: now,
        })
        .where(eq(webhooks.id, id))
        .returning();
      return { ...toWebhook({ ...row!, vaultAddress: current.vaultAddress }), secret };
    },
  };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
