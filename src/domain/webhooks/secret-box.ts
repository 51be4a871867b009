// Webhook signing secrets (and chat destinations' URLs) at rest: AES-256-GCM under a key ring. Values stored before a key was set
// (plain `whsec_…`) still read, and are sealed when the worker re-encrypts at start.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { and, asc, eq, gt, isNotNull, isNull, notLike, or } from 'drizzle-orm';
import type { Database } from '../../storage/database.js';
import { webhooks } from '../../storage/schema/index.js';

const PREFIX = 'enc:v1:';
const IV_BYTES = 12;

/** WEBHOOK_SECRETS_KEY (current) and WEBHOOK_SECRETS_KEY_PREVIOUS (still readable), 32 bytes each. */
export interface SecretKeyRing {
  readonly current: Buffer;
  readonly previous: readonly Buffer[];
}

export interface SecretBox {
  /** What to store: sealed under the current key, or the secret itself when no key is configured. */
  seal(secret: string): string;
  /** The secret of a stored value (sealed under any key of the ring, or plaintext). */
  open(stored: string): string;
  /** True when a stored value should be sealed again: plaintext, or sealed under a previous key. */
  isStale(stored: string): boolean;
  /** How every value sealed under the current key starts (null without a key: nothing is stale). */
  readonly currentPrefix: string | null;
}

/** A key's public name inside sealed values: the start of its SHA-256, so keys can rotate. */
export function keyId(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

const b64 = (bytes: Buffer) => bytes.toString('base64url');

export function createSecretBox(ring: SecretKeyRing | null): SecretBox {
  const keys = new Map<string, Buffer>();
  for (const key of ring === null ? [] : [ring.current, ...ring.previous]) keys.set(keyId(key), key);
  const currentId = ring === null ? null : keyId(ring.current);
  const currentPrefix = currentId === null ? null : `${PREFIX}${currentId}:`;

  return {
    seal(secret) {
      if (ring === null) return secret;
      const iv = randomBytes(IV_BYTES);
      const cipher = createCipheriv('aes-256-gcm', ring.current, iv);
      const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
      return `${PREFIX}${currentId}:${b64(iv)}:${b64(sealed)}:${b64(cipher.getAuthTag())}`;
    },
    open(stored) {
      if (!stored.startsWith(PREFIX)) return stored;
      const [kid, iv, sealed, tag] = stored.slice(PREFIX.length).split(':');
      const key = kid === undefined ? undefined : keys.get(kid);
      if (key === undefined || iv === undefined || sealed === undefined || tag === undefined) {
        throw new Error(
          `webhook secret sealed under unknown key ${kid ?? '?'}: set WEBHOOK_SECRETS_KEY(_PREVIOUS)`,
        );
      }
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(sealed, 'base64url')), decipher.final()]).toString(
        'utf8',
      );
    },
    isStale(stored) {
      return currentPrefix !== null && !stored.startsWith(currentPrefix);
    },
    currentPrefix,
  };
}

const RESEAL_BATCH = 500;

/**
 * Seals every stored secret and chat URL not yet under the current key (plaintext rows, or rows of a previous
 * key); the delivery worker runs it at start. Only those rows are read (after a rotation, or none).
 * Each row is swapped only if unchanged meanwhile.
 */
export async function resealWebhookSecrets(db: Database, box: SecretBox): Promise<number> {
  const prefix = box.currentPrefix;
  if (prefix === null) return 0;
  // The prefix is 'enc:v1:', hex and ':', none of them a LIKE wildcard.
  const stale = or(
    notLike(webhooks.secret, `${prefix}%`),
    and(isNotNull(webhooks.previousSecret), notLike(webhooks.previousSecret, `${prefix}%`)),
    and(isNotNull(webhooks.sealedUrl), notLike(webhooks.sealedUrl, `${prefix}%`)),
  );
  let resealed = 0;
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const rows = await db
      .select({
        id: webhooks.id,
        secret: webhooks.secret,
        previousSecret: webhooks.previousSecret,
        sealedUrl: webhooks.sealedUrl,
      })
      .from(webhooks)
      .where(and(gt(webhooks.id, after), stale))
      .orderBy(asc(webhooks.id))
      .limit(RESEAL_BATCH);
    for (const row of rows) {
      const stalePrevious = row.previousSecret !== null && box.isStale(row.previousSecret);
      const staleUrl = row.sealedUrl !== null && box.isStale(row.sealedUrl);
      if (!box.isStale(row.secret) && !stalePrevious && !staleUrl) continue;
      const changes = {
        secret: box.seal(box.open(row.secret)),
        ...(stalePrevious ? { previousSecret: box.seal(box.open(row.previousSecret!)) } : {}),
        ...(staleUrl ? { sealedUrl: box.seal(box.open(row.sealedUrl!)) } : {}),
      };
      const sameOrNull = (
        column: typeof webhooks.sealedUrl | typeof webhooks.previousSecret,
        value: string | null,
      ) => (value === null ? isNull(column) : eq(column, value));
      const unchanged = and(
        eq(webhooks.id, row.id),
        eq(webhooks.secret, row.secret),
        sameOrNull(webhooks.previousSecret, row.previousSecret),
        sameOrNull(webhooks.sealedUrl, row.sealedUrl),
      );
      const updated = await db.update(webhooks).set(changes).where(unchanged).returning({ id: webhooks.id });
      resealed += updated.length;
    }
    if (rows.length < RESEAL_BATCH) return resealed;
    after = rows[rows.length - 1]!.id;
  }
}
