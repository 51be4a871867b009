// The client's HTTP layer on fetch: request-bound wallet signatures or an API key, the error envelope as
// one error type, bounded retries on 429, and an AbortSignal on every call.
import { toBase58, toHex, utf8 } from './encoding.js';
import type { MessageSigner } from './signers.js';
import { API_KEY_PATTERN, AUTH_MESSAGE_PREFIX, type ErrorCode, requestBindingLines } from './wire.js';

/** Every failure of a call: the service's `{error, code, details}` and the HTTP status. */
export class VaultkeeperError extends Error {
  override readonly name = 'VaultkeeperError';
  constructor(
    /** The service's stable code, or NETWORK_ERROR / INVALID_RESPONSE when no answer could be read. */
    readonly code: ErrorCode | 'NETWORK_ERROR' | 'INVALID_RESPONSE' | (string & {}),
    message: string,
    /** HTTP status; 0 when the request got no answer. */
    readonly status: number,
    readonly details: Readonly<Record<string, unknown>> = {},
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * One path segment of a call, percent-encoded (`/`, `?`, `#`, `%` stay inside it). An empty one, `.`
 * or `..` is refused (VALIDATION_ERROR, nothing sent): a URL resolves them away, which would send the
 * call to another route.
 */
export function pathSegment(value: string | number | bigint): string {
  const text = String(value);
  if (text === '' || text === '.' || text === '..') {
    throw new VaultkeeperError('VALIDATION_ERROR', `${JSON.stringify(text)} is not a path segment`, 0, {
      value: text,
    });
  }
  return encodeURIComponent(text);
}

export interface TransportOptions {
  /** The service's PUBLIC_BASE_URL: its host is the Domain every signature names. */
  baseUrl: string;
  /**
   * Authenticates the routes that need it: a wallet signer (each request signed), or an API key
   * (`vk_…`, sent as `Authorization: Bearer`). Creating an API key and Blink approvals need a wallet.
   */
  signer?: MessageSigner | string | undefined;
  /** Another fetch (a test double, a proxy agent); default the global fetch. */
  fetch?: typeof fetch | undefined;
  /** Retries of a request answered 429 (default 3). */
  maxRetries?: number | undefined;
  /** A Retry-After longer than this (ms, default 60 000) is not waited for: the 429 is thrown. */
  maxRetryDelayMs?: number | undefined;
  /** Extra headers on every request. */
  headers?: Readonly<Record<string, string>> | undefined;
}

export interface CallOptions {
  signal?: AbortSignal | undefined;
}

/**
 * `required`: a wallet signature or an API key, else refuse; `wallet`: a wallet signature only;
 * `optional`: a wallet signature when the signer is a wallet (Blink POSTs); `none`: never.
 */
export type AuthMode = 'required' | 'wallet' | 'optional' | 'none';

/** Query parameters: each defined value is sent as its string. */
export type Query = object;

export interface RequestSpec extends CallOptions {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Query | undefined;
  body?: unknown;
  auth?: AuthMode;
  /** Read the answer as text (e.g. /metrics) instead of JSON. */
  text?: boolean;
  headers?: Readonly<Record<string, string>>;
}

/** The signer option as a wallet or a key; a string that is not a key is refused at once. */
function credentialsOf(signer: TransportOptions['signer']) {
  if (typeof signer !== 'string') return { wallet: signer, apiKey: undefined };
  if (!API_KEY_PATTERN.test(signer)) {
    throw new TypeError('A string signer must be an API key: vk_ followed by 43 base64url characters');
  }
  return { wallet: undefined, apiKey: signer };
}

/** Signs requests for one Domain; each message names a later millisecond, so no two texts are the same. */
function createWalletSigning(domain: string) {
  let lastTimestamp = 0;
  return async (signer: MessageSigner, method: string, url: URL, body: Uint8Array | undefined) => {
    const timestamp = Math.max(Date.now(), lastTimestamp + 1);
    lastTimestamp = timestamp;
    const digest = new Uint8Array(
      await globalThis.crypto.subtle.digest('SHA-256', new Uint8Array(body ?? [])),
    );
    const binding = requestBindingLines({
      method,
      target: `${url.pathname}${url.search}`,
      bodySha256: toHex(digest),
      domain,
    });
    const message = `${AUTH_MESSAGE_PREFIX}${timestamp}\n${binding}`;
    const signature = await signer.signMessage(utf8(message));
    return {
      'x-wallet-address': signer.address,
      'x-signature': toBase58(signature),
      'x-message': encodeURIComponent(message),
    };
  };
}

export function createTransport(options: TransportOptions) {
  const base = new URL(options.baseUrl);
  const { wallet, apiKey } = credentialsOf(options.signer);
  const fetchImpl = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const maxRetries = options.maxRetries ?? 3;
  const maxRetryDelayMs = options.maxRetryDelayMs ?? 60_000;
  const authHeaders = createWalletSigning(base.host);

  function urlOf(path: string, query: Query | undefined): URL {
    const url = new URL(`${base.pathname.replace(/\/$/, '')}${path}`, base);
    for (const [name, value] of Object.entries(query ?? {}) as [string, unknown][]) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    return url;
  }

  /** The authentication headers of one request, by the route's mode and the credentials given. */
  async function credentialHeaders(
    spec: RequestSpec,
    url: URL,
    body: Uint8Array | undefined,
  ): Promise<Record<string, string>> {
    const auth = spec.auth ?? 'none';
    if (auth === 'none') return {};
    if (wallet !== undefined) return authHeaders(wallet, spec.method, url, body);
    if (auth === 'required' && apiKey !== undefined) return { authorization: `Bearer ${apiKey}` };
    if (auth === 'optional') return {};
    const needs =
      auth === 'wallet' ? 'a wallet signer (an API key cannot do this)' : 'a signer or an API key';
    throw new VaultkeeperError('UNAUTHORIZED', `${spec.method} ${spec.path} needs ${needs}`, 0, {
      reason: 'no_signer',
    });
  }

  async function send(spec: RequestSpec, url: URL, body: Uint8Array | undefined): Promise<Response> {
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...options.headers,
      ...spec.headers,
      ...(await credentialHeaders(spec, url, body)),
    };
    if (body !== undefined) headers['content-type'] = 'application/json';
    try {
      return await fetchImpl(url, {
        method: spec.method,
        headers,
        ...(body === undefined ? {} : { body: new Uint8Array(body) }),
        ...(spec.signal === undefined ? {} : { signal: spec.signal }),
      });
    } catch (error) {
      if (spec.signal?.aborted) throw spec.signal.reason ?? error;
      const reason = error instanceof Error ? error.message : String(error);
      throw new VaultkeeperError(
        'NETWORK_ERROR',
        `${spec.method} ${url.pathname}: ${reason}`,
        0,
        {},
        { cause: error },
      );
    }
  }

  /** The answer of one call: retried (and signed again: a signature is accepted once) while it is 429. */
  async function respond(spec: RequestSpec): Promise<Response> {
    const url = urlOf(spec.path, spec.query);
    const body = spec.body === undefined ? undefined : utf8(JSON.stringify(spec.body));
    for (let attempt = 0; ; attempt += 1) {
      const response = await send(spec, url, body);
      if (response.ok) return response;
      const error = await toError(response, base.host);
      const delayMs = retryDelayMs(response, error);
      if (response.status !== 429 || attempt >= maxRetries || delayMs > maxRetryDelayMs) throw error;
      await sleep(delayMs, spec.signal);
    }
  }

  /** One call's JSON (or text) answer; every failure a VaultkeeperError. */
  const request = async <T>(spec: RequestSpec): Promise<T> => readBody<T>(await respond(spec), spec);

  /** The raw Response, for answers read as a stream (the event feed). */
  return { request, open: respond, baseUrl: base };
}

export type Transport = ReturnType<typeof createTransport>;

async function readBody<T>(response: Response, spec: RequestSpec): Promise<T> {
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  if (spec.text) return text as T;
  try {
    return JSON.parse(text) as T;
  } catch (cause) {
    throw new VaultkeeperError('INVALID_RESPONSE', 'The answer is not JSON', response.status, {}, { cause });
  }
}

/** A wrong_request refusal names the Domain the service expects: say what to change when it differs. */
function explain(message: string, details: Record<string, unknown>, signedHost: string): string {
  const expected = details.expectedDomain;
  if (details.reason !== 'wrong_request' || typeof expected !== 'string' || expected === signedHost) {
    return message;
  }
  return `${message}: the service expects Domain ${expected}, this client signed for ${signedHost}; set baseUrl to the service's PUBLIC_BASE_URL (host ${expected})`;
}

async function toError(response: Response, signedHost: string): Promise<VaultkeeperError> {
  const text = await response.text().catch(() => '');
  let envelope: { error?: unknown; message?: unknown; code?: unknown; details?: unknown } = {};
  try {
    envelope = JSON.parse(text) ?? {};
  } catch {
    // Not the envelope (a proxy's page): the status alone tells what happened.
  }
  const message = [envelope.error, envelope.message].find((m) => typeof m === 'string') as string | undefined;
  const details =
    typeof envelope.details === 'object' && envelope.details !== null
      ? (envelope.details as Record<string, unknown>)
      : {};
  return new VaultkeeperError(
    typeof envelope.code === 'string' ? envelope.code : `HTTP_${response.status}`,
    explain(message ?? `HTTP ${response.status}`, details, signedHost),
    response.status,
    details,
  );
}

/** Retry-After in seconds or as an HTTP date; else details.retryAfter; else one second. */
function retryDelayMs(response: Response, error: VaultkeeperError): number {
  const header = response.headers.get('retry-after');
  if (header !== null) {
    if (/^[0-9]+$/.test(header.trim())) return Number(header) * 1000;
    const date = Date.parse(header);
    if (!Number.isNaN(date)) return Math.max(0, date - Date.now());
  }
  const fromDetails = error.details.retryAfter;
  return typeof fromDetails === 'number' ? fromDetails * 1000 : 1000;
}

/** Waits `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
