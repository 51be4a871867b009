// The wallet-auth message text: one definition for the service that checks it and the client that
// signs it. Browser-safe (no Node modules): the hashing is each side's own.

/** The specification's two lines end with the timestamp (milliseconds since the epoch). */
export const AUTH_MESSAGE_PREFIX = 'Sign this message to authenticate with Vaultkeeper.\n\nTimestamp: ';

/** The lines a request-bound message adds after the timestamp line, in this order. */
export function requestBindingLines(input: {
  method: string;
  /** Path and query, as sent. */
  target: string;
  /** Hex SHA-256 of the raw body (of no bytes when there is none). */
  bodySha256: string;
  /** PUBLIC_BASE_URL's host, with its port when it names one. */
  domain: string;
}): string {
  return `Request: ${input.method.toUpperCase()} ${input.target}\nBody-SHA256: ${input.bodySha256}\nDomain: ${input.domain}`;
}
