// @vaultkeeper/webhooks: verify a Vaultkeeper webhook delivery on its raw body, with Web Crypto only, so a
// receiver on Node 20+, in a browser worker or on an edge runtime uses the same code.
import { bytesEqual, fromBase64, toHex, utf8 } from './encoding.js';
import type { BlockReason, Override, Transaction, Vault } from './resources.js';
import { splitSignature, standardKeyText, standardSignedText } from './wire-format.js';

export {
  ALERT_EVENTS,
  type AlertEventName,
  type DeliveredEventName,
  FEED_EVENTS,
  type FeedEventName,
  isFeedEventName,
  isWebhookEventName,
  TEST_EVENT,
  WEBHOOK_EVENTS,
  type WebhookEventName,
} from './events.js';
export type * from './resources.js';
export {
  spliceSignature,
  splitSignature,
  standardKeyText,
  standardSignedText,
  WEBHOOK_SECRET_PREFIX,
} from './wire-format.js';

/** The `data` of each event (docs/WEBHOOKS.md, Events), keyed by every name a delivery can carry. */
export interface WebhookEventData {
  'transaction.blocked': {
    vault: string;
    destination: string;
    amount: string;
    blockReason: BlockReason | (string & {});
    blinkUrl: string | null;
    approvalUrl: string | null;
    signature: string | null;
  };
  'transaction.executed': Transaction;
  'transaction.dropped': TransactionDropped;
  'override.created': Override;
  'override.approved': Override;
  'override.executed': Override;
  'override.rejected': Override;
  'vault.created': Vault & { vault: string };
  'vault.paused': Vault & { vault: string };
  'vault.resumed': Vault & { vault: string };
  'policy.updated': { vault: string; dailyLimit: string; whitelistCount: number; agentSigner: string };
  'budget.threshold': BudgetThreshold;
  'agent.velocity': AgentVelocity;
  'override.expiring': Override & { minutesLeft: number };
  'override.expired': Override;
  'webhook.test': { webhook: string; vault: string | null; message: string };
}

/**
 * The cluster dropped a transaction the service had applied at `confirmed` (its slot died, or it never
 * finalized): what it did left every list, total and metric. Sent once per vault it named.
 */
export interface TransactionDropped {
  signature: string;
  slot: number;
  vault: string;
  /** The status its transfer had (`executed` or `blocked`); null when it made no transfer. */
  previousStatus: 'executed' | 'blocked' | 'pending' | null;
}

/** An executed transfer took the window's spending to `threshold` % of the daily limit or beyond. */
export interface BudgetThreshold {
  vault: string;
  /** The percentage crossed (1..100). */
  threshold: number;
  /** As the chain had them after the transfer (lamports). */
  dailyLimit: string;
  spentToday: string;
  remaining: string;
  /** The window (the program's `last_reset`) and when it ends. */
  windowStart: string;
  resetsAt: string;
  /** The transfer that crossed it. */
  signature: string;
}

/** More transfer attempts (executed and blocked) within `windowSeconds` than `maxTransfers`. */
export interface AgentVelocity {
  vault: string;
  agentSigner: string;
  windowSeconds: number;
  maxTransfers: number;
  /** Attempts counted in the window that ends at the attempt that tripped the alert. */
  count: number;
  /** Block time of the oldest attempt counted. */
  since: string;
}

/** One delivered event; narrow on `event` to get its `data`. */
export type VaultkeeperWebhookEvent = {
  [K in keyof WebhookEventData]: {
    /** The delivery id: the same on every retry, so dedupe on it. */
    id: string;
    event: K;
    timestamp: string;
    data: WebhookEventData[K];
    /** The hex Vaultkeeper HMAC the body carries. */
    signature?: string;
  };
}[keyof WebhookEventData];

export type WebhookVerificationErrorCode =
  /** The headers of the scheme being checked are absent. */
  | 'missing_headers'
  /** Headers or body cannot be read (not a number, not JSON, not an event, ids that disagree). */
  | 'malformed'
  /** No signature matches any of the secrets. */
  | 'bad_signature'
  /** webhook-timestamp is further from now than the tolerance: a replay or a badly skewed clock. */
  | 'stale';

/** Every refusal of verifyWebhook: `code` says why; never trust the body after one. */
export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly code: WebhookVerificationErrorCode,
    message: string,
  ) {
    super(message);
  }
}

/** Headers as a Fetch `Headers`, or a plain object such as Node's `req.headers` (any case). */
export type WebhookHeaders =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyWebhookOptions {
  /** The `whsec_…` secret of the subscription. */
  secret?: string;
  /** Several secrets (during a rotation): a signature matching any one of them is enough. */
  secrets?: readonly string[];
  /** The body exactly as received: verify before parsing, never a re-serialized object. */
  rawBody: string | Uint8Array | ArrayBuffer;
  headers: WebhookHeaders;
  /** How far webhook-timestamp may be from now, in seconds (default 300). */
  toleranceSeconds?: number;
  /**
   * `auto` (default): Standard Webhooks when its headers are present, else the Vaultkeeper HMAC.
   * `standard` requires the Standard Webhooks headers (signature, id and timestamp: replays are refused).
   * `vaultkeeper` checks only X-Vaultkeeper-Signature and the body's `signature`: no timestamp, so no
   * replay protection, and after a rotation it verifies with the new secret only.
   */
  scheme?: 'auto' | 'standard' | 'vaultkeeper';
  /** The current time (tests); default the clock. */
  now?: Date;
}

export const DEFAULT_TOLERANCE_SECONDS = 300;

/** Verifies one delivery and returns its event, or throws WebhookVerificationError. */
export async function verifyWebhook(options: VerifyWebhookOptions): Promise<VaultkeeperWebhookEvent> {
  const secrets = secretsOf(options);
  const body = bodyText(options.rawBody);
  const header = headerReader(options.headers);
  const standard = {
    id: header('webhook-id'),
    timestamp: header('webhook-timestamp'),
    signature: header('webhook-signature'),
  };
  const scheme = options.scheme ?? 'auto';
  const hasStandard = standard.id !== null || standard.timestamp !== null || standard.signature !== null;
  if (scheme === 'standard' || (scheme === 'auto' && hasStandard)) {
    await verifyStandard(secrets, body, standard, options);
  } else {
    await verifyVaultkeeper(secrets, body, header('x-vaultkeeper-signature'));
  }
  const event = parseEvent(body);
  if (standard.id !== null && standard.id !== event.id) {
    throw new WebhookVerificationError('malformed', 'webhook-id does not name the delivery in the body');
  }
  return event;
}

async function verifyStandard(
  secrets: readonly string[],
  body: string,
  headers: { id: string | null; timestamp: string | null; signature: string | null },
  options: VerifyWebhookOptions,
): Promise<void> {
  const { id, timestamp, signature } = headers;
  if (id === null || timestamp === null || signature === null) {
    throw new WebhookVerificationError(
      'missing_headers',
      'Standard Webhooks headers required: webhook-id, webhook-timestamp and webhook-signature',
    );
  }
  if (!/^[0-9]{1,12}$/.test(timestamp)) {
    throw new WebhookVerificationError('malformed', 'webhook-timestamp is not unix seconds');
  }
  const nowSeconds = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  if (Math.abs(nowSeconds - Number(timestamp)) > tolerance) {
    throw new WebhookVerificationError('stale', `webhook-timestamp is more than ${tolerance} s from now`);
  }
  const given = signature
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => fromBase64(entry.slice(3)))
    .filter((bytes): bytes is Uint8Array => bytes !== null);
  if (given.length === 0) {
    throw new WebhookVerificationError('malformed', 'webhook-signature holds no v1 signature');
  }
  const signed = utf8(standardSignedText(id, timestamp, body));
  for (const secret of secrets) {
    const expected = await hmacSha256(standardKey(secret), signed);
    // Every candidate is compared (no early exit on a match), each in constant time.
    if (given.map((bytes) => bytesEqual(bytes, expected)).includes(true)) return;
  }
  throw new WebhookVerificationError('bad_signature', 'webhook-signature matches none of the secrets');
}

async function verifyVaultkeeper(secrets: readonly string[], body: string, header: string | null) {
  if (header === null) {
    throw new WebhookVerificationError('missing_headers', 'X-Vaultkeeper-Signature header required');
  }
  const split = splitSignature(body);
  const fromBody = split?.signatureTail ?? '';
  if (split === null || !/^[0-9a-f]{64}"}$/.test(fromBody) || !/^[0-9a-f]{64}$/.test(header)) {
    throw new WebhookVerificationError('malformed', 'The body or header does not carry a hex signature');
  }
  const signed = utf8(split.signed);
  const pairs = [utf8(header), utf8(fromBody.slice(0, 64))];
  for (const secret of secrets) {
    const expected = utf8(toHex(await hmacSha256(utf8(secret), signed)));
    if (pairs.map((given) => bytesEqual(given, expected)).every(Boolean)) return;
  }
  throw new WebhookVerificationError('bad_signature', 'X-Vaultkeeper-Signature matches none of the secrets');
}

function secretsOf(options: VerifyWebhookOptions): readonly string[] {
  const secrets = [...(options.secret === undefined ? [] : [options.secret]), ...(options.secrets ?? [])];
  if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s.length === 0)) {
    throw new TypeError('verifyWebhook needs `secret` or a non-empty `secrets` of whsec_… strings');
  }
  return secrets;
}

/** Standard Webhooks key: the base64-decoded part after `whsec_`. */
function standardKey(secret: string): Uint8Array {
  const key = fromBase64(standardKeyText(secret));
  if (key === null || key.length === 0) throw new TypeError('A webhook secret is whsec_ + base64');
  return key;
}

async function hmacSha256(key: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  const { subtle } = globalThis.crypto;
  // Copies backed by a plain ArrayBuffer, as Web Crypto's types ask.
  const raw = new Uint8Array(key);
  const cryptoKey = await subtle.importKey('raw', raw, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await subtle.sign('HMAC', cryptoKey, new Uint8Array(data)));
}

function bodyText(raw: VerifyWebhookOptions['rawBody']): string {
  if (typeof raw === 'string') return raw;
  if (raw instanceof Uint8Array || raw instanceof ArrayBuffer) return new TextDecoder().decode(raw);
  throw new TypeError('rawBody must be the received body as a string, Uint8Array or ArrayBuffer');
}

function headerReader(headers: WebhookHeaders): (name: string) => string | null {
  if (typeof headers.get === 'function') {
    const fetchHeaders = headers as { get(name: string): string | null };
    return (name) => fetchHeaders.get(name);
  }
  const byName = new Map(
    Object.entries(headers as Record<string, string | readonly string[] | undefined>).map(([k, v]) => [
      k.toLowerCase(),
      v,
    ]),
  );
  return (name) => {
    const value = byName.get(name);
    if (value === undefined) return null;
    return typeof value === 'string' ? value : value.join(', ');
  };
}

function parseEvent(body: string): VaultkeeperWebhookEvent {
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch {
    throw new WebhookVerificationError('malformed', 'The body is not JSON');
  }
  const event = value as Record<string, unknown> | null;
  if (
    typeof event !== 'object' ||
    event === null ||
    typeof event.id !== 'string' ||
    typeof event.timestamp !== 'string' ||
    typeof event.event !== 'string' ||
    typeof event.data !== 'object' ||
    event.data === null
  ) {
    throw new WebhookVerificationError('malformed', 'The body is not a Vaultkeeper event');
  }
  return event as unknown as VaultkeeperWebhookEvent;
}
