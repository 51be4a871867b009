// Wallet authentication: a signed, fresh, single-use message proves control of an address.
import { hash } from 'node:crypto';
import { AUTH_MESSAGE_PREFIX, requestBindingLines } from '@vaultkeeper/client/wire';
import type { Cache } from '../../cache/cache.js';
import { AppError } from '../../errors.js';
import { decodeBase58 } from '../../lib/base58.js';
import type { Clock } from '../../lib/clock.js';
import { publicKeyOf, verifyEd25519 } from '../../lib/ed25519.js';
import { createReplayGuard } from './replay-guard.js';
import type { ClaimStore } from './replay-guard-store.js';

/** How far ahead of our clock a timestamp may be (docs/AUTH.md). */
const FUTURE_SKEW_MS = 60_000;
/** Replay markers outlive the acceptance window by this much, covering clock differences between instances. */
const REPLAY_MARGIN_SECONDS = 60;
/** Milliseconds since the epoch, written without leading zeros (one text per instant). */
const TIMESTAMP = /^(0|[1-9][0-9]{0,15})$/;
/** base58 of 64 bytes is at most 88 characters; longer input is refused before decoding. */
const MAX_SIGNATURE_CHARS = 88;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export type AuthFailureReason =
  | 'missing_headers'
  | 'malformed'
  | 'bad_signature'
  | 'wrong_message'
  | 'expired'
  | 'replayed'
  | 'wrong_request'
  | 'unbound_message';

export interface WalletAuthHeaders {
  address: string | undefined;
  signature: string | undefined;
  message: string | undefined;
}

const FAILURE_MESSAGES: Readonly<Record<AuthFailureReason, string>> = {
  missing_headers: 'Wallet authentication required: X-Wallet-Address, X-Signature and X-Message',
  malformed: 'Wallet authentication headers are malformed',
  bad_signature: 'Signature does not verify for this wallet and message',
  wrong_message: 'Signed message is not the Vaultkeeper authentication message',
  expired: 'Signed message timestamp is outside the accepted window',
  replayed: 'This signature was already used',
  wrong_request: 'Signed message names another request, body or domain than this one',
  unbound_message: 'Signed message must name its request',
};

/** Where docs/AUTH.md says how to bind a message to its request. */
const BINDING_DOCS = 'docs/AUTH.md#binding-a-signature-to-its-request';

/** SHA-256 of no bytes: the Body-SHA256 of a request without a body. */
const EMPTY_SHA256 = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

/** The request a bound message must name. */
export interface SignedRequest {
  readonly method: string;
  /** Path and query exactly as sent in the request line. */
  readonly target: string;
  /** The body bytes as received; undefined when the request has none. */
  readonly body: Buffer | undefined;
}

/** The lines a request-bound message adds after the timestamp line, in this order. */
function buildRequestBinding(request: SignedRequest, domain: string): string {
  const { body } = request;
  const bodyHash = body === undefined || body.length === 0 ? EMPTY_SHA256 : hash('sha256', body, 'hex');
  return requestBindingLines({
    method: request.method,
    target: request.target,
    bodySha256: bodyHash,
    domain,
  });
}

function unauthorized(reason: AuthFailureReason): AppError {
  return new AppError('UNAUTHORIZED', FAILURE_MESSAGES[reason], { reason });
}

/**
 * unbound_message says how to sign: the three lines a bound message adds after the timestamp, with
 * the Domain this service expects, and where the docs describe them.
 */
function unboundMessage(domain: string): AppError {
  return new AppError(
    'UNAUTHORIZED',
    `${FAILURE_MESSAGES.unbound_message}: after the Timestamp line add the lines ` +
      '"Request: <METHOD> <path and query>", "Body-SHA256: <hex SHA-256 of the body bytes>" and ' +
      `"Domain: ${domain}", each after a newline (see ${BINDING_DOCS})`,
    { reason: 'unbound_message', expectedDomain: domain, docs: BINDING_DOCS },
  );
}

/** wrong_request names the Domain this service expects: the usual cause is a client on another host name. */
function wrongRequest(domain: string): AppError {
  return new AppError(
    'UNAUTHORIZED',
    `${FAILURE_MESSAGES.wrong_request} (this service expects Domain: ${domain})`,
    {
      reason: 'wrong_request',
      expectedDomain: domain,
    },
  );
}

/**
 * Decodes X-Message: `base64:` + base64 of the UTF-8 text; percent-encoding (`encodeURIComponent`);
 * or newlines written as the two characters `\n`. Null when it cannot be decoded.
 */
function decodeMessageHeader(header: string): string | null {
  if (header.startsWith('base64:')) {
    const payload = header.slice('base64:'.length);
    if (!BASE64.test(payload)) return null;
    const text = Buffer.from(payload, 'base64').toString('utf8');
    // Invalid UTF-8 decodes to U+FFFD: such bytes were never the text a wallet signed.
    return text.includes('\uFFFD') ? null : text;
  }
  // The message itself has no '%', so one in the header means percent-encoding.
  if (header.includes('%')) {
    try {
      return decodeURIComponent(header);
    } catch {
      return null;
    }
  }
  return header.replaceAll('\\n', '\n');
}

export interface WalletAuthDeps {
  /** Holds used signatures: Redis shares them across instances; the memory cache within one process. */
  readonly cache: Pick<Cache, 'setIfAbsent'>;
  /** Where used signatures go while Redis is unreachable (see createReplayGuard). */
  readonly claimStore?: ClaimStore | undefined;
  readonly clock: Clock;
  readonly maxAgeSeconds: number;
  /** The host (and port when PUBLIC_BASE_URL names one) a bound message must name. */
  readonly domain: string;
  /** Refuse messages that do not name their request. */
  readonly requireRequestBinding: boolean;
}

export function createWalletAuth(deps: WalletAuthDeps) {
  const maxAgeMs = deps.maxAgeSeconds * 1000;
  const replayGuard = createReplayGuard(deps);
  return {
    /**
     * Returns the authenticated wallet address, or throws UNAUTHORIZED with details.reason. Cheap
     * checks run first so a stale or malformed request never costs a signature verification.
     */
    async authenticate(
      headers: WalletAuthHeaders,
      request?: SignedRequest,
      options: { requireBinding?: boolean } = {},
    ): Promise<string> {
      const { address, signature, message } = headers;
      if (!address || !signature || !message) throw unauthorized('missing_headers');
      const key = publicKeyOf(address);
      if (key === null) throw unauthorized('malformed');
      const signatureBytes = signature.length <= MAX_SIGNATURE_CHARS ? decodeBase58(signature) : null;
      if (signatureBytes === null || signatureBytes.length !== 64) throw unauthorized('malformed');
      const text = decodeMessageHeader(message);
      if (text === null) throw unauthorized('malformed');
      if (!text.startsWith(AUTH_MESSAGE_PREFIX)) throw unauthorized('wrong_message');
      const newline = text.indexOf('\n', AUTH_MESSAGE_PREFIX.length);
      const stamp = text.slice(AUTH_MESSAGE_PREFIX.length, newline === -1 ? undefined : newline);
      if (!TIMESTAMP.test(stamp)) throw unauthorized('wrong_message');
      const ageMs = deps.clock.now().getTime() - Number(stamp);
      if (ageMs > maxAgeMs || ageMs < -FUTURE_SKEW_MS) throw unauthorized('expired');
      if (newline === -1) {
        if (deps.requireRequestBinding || options.requireBinding) throw unboundMessage(deps.domain);
      } else {
        checkBinding(text.slice(newline + 1), request, deps.domain);
      }
      if (!(await verifyEd25519(key, Buffer.from(text, 'utf8'), signatureBytes))) {
        throw unauthorized('bad_signature');
      }
      // Remember the signature for as long as its message could still be accepted anywhere.
      const ttlSeconds = Math.ceil((maxAgeMs - ageMs) / 1000) + REPLAY_MARGIN_SECONDS;
      if (!(await replayGuard.claim(`auth:sig:${signature}`, ttlSeconds))) throw unauthorized('replayed');
      return address;
    },
  };
}

export type WalletAuth = ReturnType<typeof createWalletAuth>;

const BINDING_LINES = /^Request: [^\n]*\nBody-SHA256: [0-9a-f]{64}\nDomain: [^\n]*$/;

/** The lines after the timestamp must name this very request; when they do not, their shape says why. */
function checkBinding(lines: string, request: SignedRequest | undefined, domain: string): void {
  if (request !== undefined && lines === buildRequestBinding(request, domain)) return;
  throw BINDING_LINES.test(lines) ? wrongRequest(domain) : unauthorized('wrong_message');
}
