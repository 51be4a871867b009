// The texts client and service must agree on byte for byte: the wallet-auth message, the Solana Actions
// sign-message text, and the API key format. The service imports them from here.
import type { SignMessageData } from './types.js';

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

/** The text a wallet signs for Actions SignMessageData (the Sign-In-With-Solana layout). */
export function buildSignMessageText(data: SignMessageData): string {
  const fields: string[] = [];
  if (data.chainId) fields.push(`Chain ID: ${data.chainId}`);
  fields.push(`Nonce: ${data.nonce}`, `Issued At: ${data.issuedAt}`);
  return `${data.domain} wants you to sign a message with your account:\n${data.address}\n\n${data.statement}\n\n${fields.join('\n')}`;
}

/** Every API key starts so; then base64url of 32 random bytes (43 characters). */
export const API_KEY_PREFIX = 'vk_';

/** The shape of an API key: `vk_` and 43 base64url characters. */
export const API_KEY_PATTERN = /^vk_[A-Za-z0-9_-]{43}$/;

/** How many leading characters of a key are kept and shown to tell keys apart. */
export const API_KEY_PREFIX_LENGTH = 10;

/** The service's stable error codes: the `code` of its error envelope `{ error, code, details }`. */
export type ErrorCode =
  | 'VALIDATION_ERROR'
  | 'UNAUTHORIZED'
  | 'FORBIDDEN'
  | 'INSUFFICIENT_SCOPE'
  | 'NOT_FOUND'
  | 'VAULT_NOT_FOUND'
  | 'TRANSACTION_NOT_FOUND'
  | 'OVERRIDE_NOT_FOUND'
  | 'WEBHOOK_NOT_FOUND'
  | 'DELIVERY_NOT_FOUND'
  | 'API_KEY_NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'API_KEY_LIMIT_REACHED'
  | 'WEBHOOK_LIMIT_REACHED'
  | 'WEBHOOK_DISABLED'
  | 'WEBHOOK_NOT_VERIFIED'
  | 'OVERRIDE_NOT_PENDING'
  | 'OVERRIDE_EXPIRED'
  | 'TRANSFER_REFUSED'
  | 'REQUEST_TIMEOUT'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'RATE_LIMIT_EXCEEDED'
  | 'SIMULATION_FAILED'
  | 'TRANSACTION_FAILED'
  | 'TRANSACTION_MISMATCH'
  | 'CHAIN_UNAVAILABLE'
  | 'RPC_UNAVAILABLE'
  | 'SERVICE_UNAVAILABLE'
  | 'INTERNAL_ERROR';

export type { SignMessageData } from './types.js';
