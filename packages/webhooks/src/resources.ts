// The resources webhook payloads carry, as the API serves them (the client package shares these types):
// aliases of the types openapi-typescript renders from the OpenAPI document (./generated/openapi.ts).
import type { components } from './generated/openapi.js';

/** Lamports as a decimal integer string (u64 does not fit a JSON number). */
export type Lamports = string;
/** ISO 8601 UTC with milliseconds. */
export type Timestamp = string;

/** A transaction as lists show it, and the object of `transaction.executed`. */
export type Transaction = components['schemas']['Transaction'];
/** An override request (a blocked transfer the owner may approve), and the object of `override.*`. */
export type Override = components['schemas']['Override'];
/** A vault in full (GET /api/vaults/:address), and the object of `vault.*`. */
export type Vault = components['schemas']['Vault'];

export type BlockReason = NonNullable<Transaction['blockReason']>;
export type TransactionStatus = Transaction['status'];
export type OverrideStatus = Override['status'];
export type VaultTier = Vault['tier'];
