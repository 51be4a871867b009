// Subscriptions: create, read, change, delete and rotate secrets; always scoped to the signing owner.
import { and, count, desc, eq, sql } from 'drizzle-orm';
import { AppError, validationError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { type Pagination, pageOffset, toPageRequest, toPagination } from '../../lib/pagination.js';
import type { Database, Queryable } from '../../storage/database.js';
import { vaults, type WebhookRow, webhooks } from '../../storage/schema/index.js';
import { type AuditStamp, recordDone } from '../audit/audit-service.js';
import { assertVaultOwner } from '../auth/ownership.js';
import { vaultNotFound } from '../vaults/vault-reads.js';
import { resolveFormat, toStoredDestination, type WebhookFormat } from './chat/destination.js';
import {
  type ConfirmationMail,
  type ConfirmationMailer,
  confirmSubscription,
  createConfirmation,
  isConfirmationUsable,
} from './confirmations.js';
import type { SecretBox } from './secret-box.js';
import { generateWebhookSecret } from './signatures.js';
import { assertRoomForWebhook, hashClientKey, WEBHOOK_LIMITS } from './subscription-caps.js';
import { mailtoAddress, parseSubscriptionUrl, type UrlPolicy } from './subscription-url.js';
import type { WebhookEvent } from './webhook-events.js';
import type { Webhook, WebhookWithSecret } from './webhook-resource.js';

export const MAX_WEBHOOKS_PER_OWNER = WEBHOOK_LIMITS.perOwner;
/** How long the secret before a rotation keeps signing alongside the new one. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;

export interface WebhookServiceDeps {
  readonly db: Database;
  readonly clock: Clock;
  readonly urlPolicy: UrlPolicy;
  readonly secretBox: SecretBox;
  /** Sends `mailto:` confirmation mails; null when e-mail is not configured. */
  readonly mailer: ConfirmationMailer | null;
  /** Origin of the confirmation links. */
  readonly publicBaseUrl: string;
}

/** A page of a list: page ≥ 1, limit 1..100 (defaults in lib/pagination). */
export type PageQuery = Parameters<typeof toPageRequest>[0];

type OwnedRow = WebhookRow & { vaultAddress: string | null };

export function toWebhook(row: OwnedRow): Webhook {
  return {
    id: row.id,
    url: row.url,
    format: row.format,
    events: row.events,
    vault: row.vaultAddress,
    active: row.active,
    verified: row.verified,
    disabledReason: row.disabledReason,
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

export function createWebhookService(deps: WebhookServiceDeps) {
  const { db, clock } = deps;
  return {
    findOwned: (owner: string, id: string) => findOwned(db, owner, id),
    /** `clientKey`: who asked (request.clientKey), for the per-client cap; stored hashed. */
    createWebhook: (owner: string, input: NewWebhook, clientKey?: string, audit?: Audit) =>
      createWebhook(deps, owner, input, clientKey === undefined ? null : hashClientKey(clientKey), audit),
    /** Read only, for the page a confirmation link opens. */
    isConfirmationUsable: (token: string) => isConfirmationUsable(db, token, clock.now()),
    /** Uses a confirmation link; false when it cannot confirm anything (any reason). */
    confirmSubscription: (token: string) =>
      db.transaction((tx) => confirmSubscription(tx, token, clock.now())),
    listWebhooks: (owner: string, query: PageQuery) => listWebhooks(db, owner, query),
    getWebhook: async (owner: string, id: string): Promise<Webhook> =>
      toWebhook(await findOwned(db, owner, id)),
    /** Changes url, format, events or active; re-enabling clears the failure record that disabled it. */
    updateWebhook: (owner: string, id: string, input: WebhookChange, audit?: Audit) =>
      updateWebhook(deps, owner, id, input, audit),
    deleteWebhook: async (owner: string, id: string, audit?: Audit): Promise<void> => {
      const current = await findOwned(db, owner, id);
      await db.transaction(async (tx) => {
        await tx.delete(webhooks).where(and(eq(webhooks.id, id), eq(webhooks.owner, owner)));
        await recordDone(tx, audit, subjectOf(current), clock.now());
      });
    },
    /** A new secret, shown once; the previous one keeps signing for SECRET_OVERLAP_MS. */
    rotateSecret: (owner: string, id: string, audit?: Audit) => rotateSecret(deps, owner, id, audit),
  };
}

type Audit = AuditStamp | null;

/** What an audit entry names for a subscription. */
const subjectOf = (row: { id: string; vaultAddress: string | null }) => ({
  target: `webhook:${row.id}`,
  vault: row.vaultAddress,
});

interface NewWebhook {
  url: string;
  format?: WebhookFormat | undefined;
  events: readonly WebhookEvent[];
  vault?: string | undefined;
}

interface WebhookChange {
  url?: string | undefined;
  format?: WebhookFormat | undefined;
  events?: readonly WebhookEvent[] | undefined;
  active?: boolean | undefined;
}

const withVault = (db: Database) =>
  db
    .select({ webhook: webhooks, vaultAddress: vaults.address })
    .from(webhooks)
    .leftJoin(vaults, eq(vaults.id, webhooks.vaultId));

const flatten = (r: { webhook: WebhookRow; vaultAddress: string | null }): OwnedRow => ({
  ...r.webhook,
  vaultAddress: r.vaultAddress,
});

/** The subscription when `owner` owns it: 404 when unknown, 403 when someone else's. */
async function findOwned(db: Database, owner: string, id: string): Promise<OwnedRow> {
  const [row] = await withVault(db).where(eq(webhooks.id, id)).limit(1);
  if (row === undefined) throw new AppError('WEBHOOK_NOT_FOUND', 'Webhook not found', { id });
  if (row.webhook.owner !== owner) {
    throw new AppError('FORBIDDEN', 'Only the owner of this webhook may use it', { reason: 'not_owner' });
  }
  return flatten(row);
}

async function findVaultOwnedBy(
  db: Database,
  owner: string,
  address: string,
): Promise<{ id: string; address: string }> {
  const [vault] = await db
    .select({ id: vaults.id, address: vaults.address, authority: vaults.authority })
    .from(vaults)
    .where(eq(vaults.address, address))
    .limit(1);
  if (vault === undefined) throw vaultNotFound(address);
  assertVaultOwner(owner, vault.authority);
  return vault;
}

function confirm(deps: WebhookServiceDeps, tx: Queryable, webhookId: string, address: string, now: Date) {
  return createConfirmation(tx, { webhookId, address, now, publicBaseUrl: deps.publicBaseUrl });
}

async function sendMail(deps: WebhookServiceDeps, mail: ConfirmationMail | null): Promise<void> {
  if (mail !== null) await deps.mailer?.send(mail);
}

async function createWebhook(
  deps: WebhookServiceDeps,
  owner: string,
  input: NewWebhook,
  createdFrom: string | null,
  audit?: Audit,
): Promise<WebhookWithSecret> {
  const { db, clock } = deps;
  const url = parseSubscriptionUrl(input.url, deps.urlPolicy);
  const destination = toStoredDestination(url, resolveFormat(url, input.format), deps.secretBox.seal);
  const vault = input.vault === undefined ? null : await findVaultOwnedBy(db, owner, input.vault);
  const now = clock.now();
  const secret = generateWebhookSecret();
  const address = mailtoAddress(url);
  const { row, mail } = await db.transaction(async (tx) => {
    await assertRoomForWebhook(tx, owner, createdFrom);
    const [inserted] = await tx
      .insert(webhooks)
      .values({
        owner,
        createdFrom,
        vaultId: vault?.id ?? null,
        ...destination,
        events: [...new Set(input.events)],
        secret: deps.secretBox.seal(secret),
        verified: address === null,
        createdAt: now,
        updatedAt: now,
      })
      .returning();
    const confirmation = address === null ? null : await confirm(deps, tx, inserted!.id, address, now);
    await recordDone(tx, audit, { target: `webhook:${inserted!.id}`, vault: vault?.address ?? null }, now);
    return { row: inserted!, mail: confirmation };
  });
  await sendMail(deps, mail);
  return { ...toWebhook({ ...row, vaultAddress: vault?.address ?? null }), secret };
}

async function listWebhooks(
  db: Database,
  owner: string,
  query: PageQuery,
): Promise<{ webhooks: Webhook[]; pagination: Pagination }> {
  const page = toPageRequest(query);
  const [total] = await db.select({ n: count() }).from(webhooks).where(eq(webhooks.owner, owner));
  const rows = await withVault(db)
    .where(eq(webhooks.owner, owner))
    .orderBy(desc(webhooks.createdAt), desc(webhooks.id))
    .limit(page.limit)
    .offset(pageOffset(page));
  return {
    webhooks: rows.map((r) => toWebhook(flatten(r))),
    pagination: toPagination(page, total?.n ?? 0),
  };
}

async function updateWebhook(
  deps: WebhookServiceDeps,
  owner: string,
  id: string,
  input: WebhookChange,
  audit?: Audit,
): Promise<Webhook> {
  const { db, clock } = deps;
  const current = await findOwned(db, owner, id);
  if (Object.values(input).every((value) => value === undefined)) {
    throw validationError([{ path: 'body', message: 'give at least one of url, format, events, active' }]);
  }
  const now = clock.now();
  const changes: Partial<typeof webhooks.$inferInsert> = { updatedAt: now };
  const destination = changedDestination(deps, current, input);
  const urlChanged = destination !== null && destination.full !== currentUrl(deps, current);
  // A new address must be confirmed again; an https URL needs no confirmation.
  const address = urlChanged ? mailtoAddress(destination.full) : null;
  if (destination !== null) Object.assign(changes, destination.stored);
  if (urlChanged) changes.verified = address === null;
  if (input.events !== undefined) changes.events = [...new Set(input.events)];
  if (input.active === true && !current.active) {
    Object.assign(changes, { active: true, disabledReason: null, failingSince: null });
  } else if (input.active === false && current.active) {
    Object.assign(changes, { active: false, disabledReason: 'disabled by owner' });
  }
  const { row, mail } = await db.transaction(async (tx) => {
    const [updated] = await tx.update(webhooks).set(changes).where(eq(webhooks.id, id)).returning();
    await recordDone(tx, audit, subjectOf(current), now);
    return { row: updated!, mail: address === null ? null : await confirm(deps, tx, id, address, now) };
  });
  await sendMail(deps, mail);
  return toWebhook({ ...row, vaultAddress: current.vaultAddress });
}

/** The subscription's full URL (a chat destination's is opened from its sealed form). */
function currentUrl(deps: WebhookServiceDeps, row: OwnedRow): string {
  return row.sealedUrl === null ? row.url : deps.secretBox.open(row.sealedUrl);
}

/** The destination after a change of url and/or format, or null when neither changes. */
function changedDestination(deps: WebhookServiceDeps, current: OwnedRow, input: WebhookChange) {
  if (input.url === undefined && input.format === undefined) return null;
  if (input.url === undefined && input.format === 'json' && current.format !== 'json') {
    throw validationError([
      { path: 'body.url', message: 'give the url again to change a chat destination to json' },
    ]);
  }
  const full =
    input.url === undefined ? currentUrl(deps, current) : parseSubscriptionUrl(input.url, deps.urlPolicy);
  // Without format a new URL is detected afresh, as on creation; without url the current one is kept.
  const format = resolveFormat(full, input.format ?? (input.url === undefined ? current.format : undefined));
  return { full, stored: toStoredDestination(full, format, deps.secretBox.seal) };
}

async function rotateSecret(
  deps: WebhookServiceDeps,
  owner: string,
  id: string,
  audit?: Audit,
): Promise<WebhookWithSecret> {
  const current = await findOwned(deps.db, owner, id);
  const now = deps.clock.now();
  const secret = generateWebhookSecret();
  const row = await deps.db.transaction(async (tx) => {
    const [rotated] = await tx
      .update(webhooks)
      .set({
        previousSecret: sql`${webhooks.secret}`,
        previousSecretExpiresAt: new Date(now.getTime() + SECRET_OVERLAP_MS),
        secret: deps.secretBox.seal(secret),
        updatedAt: now,
      })
      .where(eq(webhooks.id, id))
      .returning();
    await recordDone(tx, audit, subjectOf(current), now);
    return rotated;
  });
  return { ...toWebhook({ ...row!, vaultAddress: current.vaultAddress }), secret };
}

export type WebhookService = ReturnType<typeof createWebhookService>;
