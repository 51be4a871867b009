// Confirmation of `mailto:` subscriptions: one mail with a single-use link, at most a few per address
// and day across all owners; nothing else is sent to the address until its recipient confirms.
import { createHash, randomBytes } from 'node:crypto';
import { and, count, eq, gt, isNotNull, isNull, sql } from 'drizzle-orm';
import { AppError } from '../../errors.js';
import { escapeHtml } from '../../lib/html.js';
import type { Queryable } from '../../storage/database.js';
import { webhookConfirmations, webhooks } from '../../storage/schema/index.js';

export const CONFIRMATION_TTL_MS = 24 * 60 * 60 * 1000;
/** Confirmation mails per address in any 24 hours, whoever asks. */
export const MAX_CONFIRMATIONS_PER_ADDRESS = 3;
/** The path of a confirmation link, before its token. */
export const CONFIRMATION_PATH = '/webhooks/confirm/';

export interface ConfirmationMail {
  /** Identifies the mail (its Message-ID). */
  id: string;
  to: string;
  subject: string;
  text: string;
  html: string;
}

/** Sends one mail; failures are the sender's to log (the subscription simply stays unverified). */
export interface ConfirmationMailer {
  send(mail: ConfirmationMail): Promise<void>;
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** Serialises writers of one key (an owner, an address) until the transaction ends; works on PGlite too. */
export async function lockKey(tx: Queryable, key: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${key}))`);
}

/**
 * Inside the subscription's transaction: records a confirmation for `address` and returns the mail to
 * send after commit, or 429 RATE_LIMIT_EXCEEDED when the address had its share today.
 */
export async function createConfirmation(
  tx: Queryable,
  input: { webhookId: string; address: string; now: Date; publicBaseUrl: string },
): Promise<ConfirmationMail> {
  const address = input.address.toLowerCase();
  await lockKey(tx, `vaultkeeper:confirmations:${address}`);
  const since = new Date(input.now.getTime() - CONFIRMATION_TTL_MS);
  const [sent] = await tx
    .select({ n: count() })
    .from(webhookConfirmations)
    .where(and(eq(webhookConfirmations.address, address), gt(webhookConfirmations.createdAt, since)));
  if ((sent?.n ?? 0) >= MAX_CONFIRMATIONS_PER_ADDRESS) {
    throw new AppError('RATE_LIMIT_EXCEEDED', 'Too many confirmation e-mails to this address today', {
      reason: 'confirmation_limit',
      limit: MAX_CONFIRMATIONS_PER_ADDRESS,
    });
  }
  const token = randomBytes(32).toString('base64url');
  const [row] = await tx
    .insert(webhookConfirmations)
    .values({
      tokenHash: hashToken(token),
      webhookId: input.webhookId,
      address,
      createdAt: input.now,
      expiresAt: new Date(input.now.getTime() + CONFIRMATION_TTL_MS),
    })
    .returning({ id: webhookConfirmations.id });
  return {
    id: row!.id,
    to: input.address,
    ...buildConfirmationMessage(`${input.publicBaseUrl}${CONFIRMATION_PATH}${token}`),
  };
}

/** Fixed text: nothing in it comes from the subscriber but the address it is sent to. */
export function buildConfirmationMessage(link: string): Pick<ConfirmationMail, 'subject' | 'text' | 'html'> {
  const intro =
    'Someone asked Vaultkeeper to send notifications about a Solana vault to this e-mail address.';
  const action = 'To receive them, open the link below and press Confirm. The link works once, for 24 hours.';
  const ignore = 'If you did not ask for this, ignore this message: nothing more will be sent.';
  const escaped = escapeHtml(link);
  const paragraphs = [intro, action].map((p) => `<p>${escapeHtml(p)}</p>`).join('');
  return {
    subject: '[Vaultkeeper] Confirm e-mail notifications',
    text: [intro, '', action, link, '', ignore, '', '— Vaultkeeper'].join('\n'),
    html: `<!doctype html><html><body>${paragraphs}<p><a href="${escaped}">${escaped}</a></p><p>${escapeHtml(ignore)}</p><p>— Vaultkeeper</p></body></html>`,
  };
}

function usable(token: string, now: Date) {
  return and(
    eq(webhookConfirmations.tokenHash, hashToken(token)),
    isNull(webhookConfirmations.usedAt),
    isNotNull(webhookConfirmations.webhookId),
    gt(webhookConfirmations.expiresAt, now),
  );
}

/** Whether a link can still confirm (read only: mail scanners open links). */
export async function isConfirmationUsable(db: Queryable, token: string, now: Date): Promise<boolean> {
  const [row] = await db
    .select({ id: webhookConfirmations.id })
    .from(webhookConfirmations)
    .where(usable(token, now));
  return row !== undefined;
}

/**
 * Uses the link once: verifies its subscription if it still sends to the same address. False when
 * the link is unknown, used, expired, or its subscription is gone or now sends elsewhere.
 */
export async function confirmSubscription(db: Queryable, token: string, now: Date): Promise<boolean> {
  const [used] = await db
    .update(webhookConfirmations)
    .set({ usedAt: now })
    .where(usable(token, now))
    .returning({ webhookId: webhookConfirmations.webhookId, address: webhookConfirmations.address });
  if (used === undefined) return false;
  const verified = await db
    .update(webhooks)
    .set({ verified: true, updatedAt: now })
    .where(and(eq(webhooks.id, used.webhookId!), sql`lower(${webhooks.url}) = ${`mailto:${used.address}`}`))
    .returning({ id: webhooks.id });
  return verified.length > 0;
}
