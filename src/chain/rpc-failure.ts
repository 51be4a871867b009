// Whether a failed RPC call is the endpoint's fault (a connection error, timeout, 5xx or 429: cool it
// down and move on) or the call's own (hand it back to the caller), and how long the node asked to wait.
import { isSolanaError, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR } from '@solana/kit';

/** A non-2xx HTTP answer from a request sent outside kit's transport (JSON-RPC batches). */
export class RpcHttpStatusError extends Error {
  constructor(
    readonly statusCode: number,
    readonly headers: Headers,
  ) {
    super(`RPC answered HTTP ${statusCode}`);
    this.name = 'RpcHttpStatusError';
  }
}

class RpcTimeoutError extends Error {
  constructor(ms: number) {
    super(`RPC call did not answer within ${ms} ms`);
    this.name = 'RpcTimeoutError';
  }
}

export type RpcFailure = { kind: 'rate_limited' | 'error' | 'timeout'; retryAfterMs: number | null };
/** A long-lived use failed in a way the transport does not name (e.g. a WebSocket that dropped). */
export const UNCLASSIFIED: RpcFailure = { kind: 'error', retryAfterMs: null };

/** Whether an error is the endpoint's fault (move on) or the call's (give it back to the caller). */
export function classifyRpcFailure(error: unknown, now = Date.now()): RpcFailure | null {
  let status: number | null = null;
  let headers: Headers | null = null;
  if (isSolanaError(error, SOLANA_ERROR__RPC__TRANSPORT_HTTP_ERROR)) {
    status = error.context.statusCode;
    headers = error.context.headers as Headers;
  } else if (error instanceof RpcHttpStatusError) {
    status = error.statusCode;
    headers = error.headers;
  } else if (error instanceof RpcTimeoutError) {
    return { kind: 'timeout', retryAfterMs: null };
  } else if (error instanceof TypeError || (error as { code?: unknown })?.code === 'ECONNREFUSED') {
    // fetch rejects with a TypeError when the connection fails or drops mid-answer.
    return { kind: 'error', retryAfterMs: null };
  }
  if (status === null) return null;
  if (status === 429) return { kind: 'rate_limited', retryAfterMs: parseRetryAfter(headers, now) };
  if (status >= 500) return { kind: 'error', retryAfterMs: parseRetryAfter(headers, now) };
  return null;
}

/** Retry-After in seconds or as an HTTP date, in milliseconds from now (null when absent or invalid). */
export function parseRetryAfter(headers: Headers | null, now = Date.now()): number | null {
  const raw = headers?.get('retry-after')?.trim();
  if (raw === undefined || raw === '') return null;
  if (/^\d+$/.test(raw)) return Number(raw) * 1000;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** Runs send with a signal that also aborts after timeoutMs; that timeout rejects as RpcTimeoutError. */
export async function sendWithTimeout<T>(
  timeoutMs: number,
  send: (signal: AbortSignal) => Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T> {
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(new RpcTimeoutError(timeoutMs)), timeoutMs);
  try {
    return await send(signal ? AbortSignal.any([signal, timeout.signal]) : timeout.signal);
  } catch (error) {
    if (timeout.signal.aborted && !signal?.aborted) throw timeout.signal.reason;
    throw error;
  } finally {
    clearTimeout(timer);
  }
}
