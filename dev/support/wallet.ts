// #region readme-auth-helper (docs/AUTH.md "Signing requests in code" shows this code; auth.test.ts keeps them equal)
// vaultkeeper-auth.ts: sign Vaultkeeper requests the way a wallet does (ed25519 over the UTF-8 message).
import { getBase58Decoder } from '@solana/kit';

/** Anything that signs bytes with an ed25519 key: a wallet adapter, a kit key pair, a node:crypto key. */
export interface MessageSigner {
  /** The signer's address (its base58 public key). */
  readonly address: string;
  signMessage(message: Uint8Array): Promise<Uint8Array> | Uint8Array;
}

let lastTimestamp = 0;

/**
 * The exact text to sign. Each call takes a later millisecond: two requests never sign the same text.
 * `binding` (from requestBinding) ties the signature to one request; the service refuses a message
 * without it unless its operator set AUTH_REQUIRE_REQUEST_BINDING=false.
 */
export function createAuthMessage(timestampMs?: number, binding?: string): string {
  const timestamp = timestampMs ?? Math.max(Date.now(), lastTimestamp + 1);
  if (timestampMs === undefined) lastTimestamp = timestamp;
  const message = `Sign this message to authenticate with Vaultkeeper.\n\nTimestamp: ${timestamp}`;
  return binding === undefined ? message : `${message}\n${binding}`;
}

/** The lines naming one request: method, path and query, SHA-256 of the exact body bytes, the API's host. */
export async function requestBinding(method: string, url: URL, body?: Uint8Array): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', body ?? new Uint8Array()));
  const hex = Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
  return `Request: ${method.toUpperCase()} ${url.pathname}${url.search}\nBody-SHA256: ${hex}\nDomain: ${url.host}`;
}

/** The three headers of one request; X-Message is percent-encoded because a header cannot hold a newline. */
export function createAuthHeaders(
  address: string,
  message: string,
  signature: Uint8Array,
): Record<string, string> {
  return {
    'x-wallet-address': address,
    'x-signature': getBase58Decoder().decode(signature),
    'x-message': encodeURIComponent(message),
  };
}

/**
 * Sends one JSON request signed for exactly this method, URL and body (a signature is accepted once,
 * within 5 minutes). baseUrl must be the service's PUBLIC_BASE_URL: its host is the signed domain.
 */
export async function fetchSigned(
  baseUrl: string,
  path: string,
  signer: MessageSigner,
  init: { method: string; body?: unknown },
): Promise<Response> {
  const url = new URL(path, baseUrl);
  const body = init.body === undefined ? undefined : new TextEncoder().encode(JSON.stringify(init.body));
  const message = createAuthMessage(undefined, await requestBinding(init.method, url, body));
  const signature = await signer.signMessage(new TextEncoder().encode(message));
  const headers = createAuthHeaders(signer.address, message, signature);
  if (body === undefined) return fetch(url, { method: init.method, headers });
  return fetch(url, {
    method: init.method,
    headers: { ...headers, 'content-type': 'application/json' },
    body,
  });
}

// #endregion readme-auth-helper

import { createHash, generateKeyPairSync, type KeyObject, sign } from 'node:crypto';

/** The host the test configuration's default PUBLIC_BASE_URL (http://localhost:3000) names. */
export const TEST_DOMAIN = 'localhost:3000';

/**
 * The request a bound test message names: a string or bytes body is hashed as it is, any other body as
 * JSON.stringify gives it (what Fastify's inject sends for an object payload).
 */
export interface SignedTestRequest {
  method: string;
  /** Path and query as the request line carries them. */
  path: string;
  body?: unknown;
  /** PUBLIC_BASE_URL's host (TEST_DOMAIN by default). */
  domain?: string;
}

/** The binding lines of createAuthMessage for a test request, computed synchronously. */
export function testRequestBinding(request: SignedTestRequest): string {
  const { body } = request;
  const bytes =
    body === undefined
      ? Buffer.alloc(0)
      : body instanceof Uint8Array
        ? body
        : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body), 'utf8');
  const hash = createHash('sha256').update(bytes).digest('hex');
  return `Request: ${request.method.toUpperCase()} ${request.path}\nBody-SHA256: ${hash}\nDomain: ${request.domain ?? TEST_DOMAIN}`;
}

export type MessageHeaderForm = 'percent' | 'escaped' | 'base64';

/** A generated key pair that signs like a wallet, for tests and benchmarks. */
export interface TestWallet extends MessageSigner {
  readonly privateKey: KeyObject;
  /** The 64-byte secret key as `solana-keygen` stores it: seed ‖ public key. */
  readonly secretKey: Uint8Array;
  /** The 64-byte ed25519 signature of bytes (or of a string's UTF-8 bytes). */
  sign(message: Uint8Array | string): Uint8Array;
  /**
   * The three wallet-auth headers for one request: a fresh message unless `message` or `timestampMs`
   * is given, X-Message in the given form (percent-encoded by default, as the docs/AUTH.md helper sends it).
   * With `request`, the message is bound to that request; without it, it is the unbound two lines.
   */
  authHeaders(options?: {
    timestampMs?: number;
    form?: MessageHeaderForm;
    message?: string;
    request?: SignedTestRequest;
  }): Record<string, string>;
}

/** X-Message in one of the three accepted forms. */
export function encodeMessageHeader(message: string, form: MessageHeaderForm): string {
  if (form === 'base64') return `base64:${Buffer.from(message, 'utf8').toString('base64')}`;
  if (form === 'escaped') return message.replaceAll('\n', '\\n');
  return encodeURIComponent(message);
}

export function createTestWallet(): TestWallet {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url');
  const address = getBase58Decoder().decode(raw);
  const signBytes = (message: Uint8Array | string) =>
    new Uint8Array(
      sign(null, typeof message === 'string' ? Buffer.from(message, 'utf8') : message, privateKey),
    );
  const seed = Buffer.from(privateKey.export({ format: 'jwk' }).d as string, 'base64url');
  return {
    address,
    privateKey,
    secretKey: new Uint8Array([...seed, ...raw]),
    sign: signBytes,
    signMessage: signBytes,
    authHeaders(options = {}) {
      const binding = options.request === undefined ? undefined : testRequestBinding(options.request);
      const message = options.message ?? createAuthMessage(options.timestampMs, binding);
      const headers = createAuthHeaders(address, message, signBytes(message));
      return { ...headers, 'x-message': encodeMessageHeader(message, options.form ?? 'percent') };
    },
  };
}
