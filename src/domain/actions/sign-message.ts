// Solana Actions 2.4 sign-message pieces: the SignMessageData text a wallet signs, nonces, and `state`.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { getBase58Decoder } from '@solana/kit';

export interface SignMessageData {
  domain: string;
  address: string;
  statement: string;
  nonce: string;
  issuedAt: string;
  chainId?: string;
}

/** The exact text of Actions spec 2.4 (SIWS-compatible) for SignMessageData. */
export function buildSignMessageText(data: SignMessageData): string {
  const fields: string[] = [];
  if (data.chainId) fields.push(`Chain ID: ${data.chainId}`);
  fields.push(`Nonce: ${data.nonce}`, `Issued At: ${data.issuedAt}`);
  return `${data.domain} wants you to sign a message with your account:\n${data.address}\n\n${data.statement}\n\n${fields.join('\n')}`;
}

const base58 = getBase58Decoder();

/** 16 random bytes in base58: alphanumeric and at least 8 characters, as the spec asks. */
export function createActionNonce(): string {
  return base58.decode(randomBytes(16));
}

export interface StateFields {
  nonce: string;
  overrideId: string;
  account: string;
  issuedAt: string;
}

const STATE_PATTERN = /^v1\.([1-9A-HJ-NP-Za-km-z]{8,44})\.([A-Za-z0-9_-]{43})$/;

/**
 * `state` = `v1.<nonce>.<mac>`, the MAC binding the nonce to its override, account and issue time.
 * The key is ACTIONS_STATE_SECRET when set (every instance can check it) or random per process.
 */
export function createStateCodec(secret: string | null) {
  const key = secret === null ? randomBytes(32) : Buffer.from(secret, 'utf8');
  const mac = (f: StateFields) =>
    createHmac('sha256', key)
      .update(`vaultkeeper-action-state:v1\n${f.nonce}\n${f.overrideId}\n${f.account}\n${f.issuedAt}`)
      .digest();
  return {
    /** True when every instance shares the key, so a MAC mismatch means tampering. */
    shared: secret !== null,
    encode(fields: StateFields): string {
      return `v1.${fields.nonce}.${mac(fields).toString('base64url')}`;
    },
    /** The nonce a state names, or null when it is not a state this service issues. */
    parseNonce(state: string): string | null {
      return STATE_PATTERN.exec(state)?.[1] ?? null;
    },
    verify(state: string, fields: StateFields): boolean {
      const given = STATE_PATTERN.exec(state)?.[2];
      if (given === undefined) return false;
      const expected = mac(fields);
      const actual = Buffer.from(given, 'base64url');
      return actual.length === expected.length && timingSafeEqual(actual, expected);
    },
  };
}

export type StateCodec = ReturnType<typeof createStateCodec>;
