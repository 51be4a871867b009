// Solana Actions 2.4 sign-message pieces: the SignMessageData text a wallet signs, nonces, and `state`.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { getBase58Decoder } from '@solana/kit';

export { buildSignMessageText } from '@vaultkeeper/client/wire';
export type { SignMessageData } from './sign-message-data.js';

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

const STATE_PATTERN = /^v2\.([1-9A-HJ-NP-Za-km-z]{8,44})\.([0-9]{1,15})\.([A-Za-z0-9_-]{43})$/;

/**
 * `state` = `v2.<nonce>.<issued at, ms>.<mac>`, the MAC binding the nonce to its override, account and
 * issue time. Nothing is stored when it is issued: the state carries what the confirmation checks.
 * The key is ACTIONS_STATE_SECRET when set (every instance can check it) or random per process.
 */
export function createStateCodec(secret: string | null) {
  const key = secret === null ? randomBytes(32) : Buffer.from(secret, 'utf8');
  const mac = (f: StateFields) =>
    createHmac('sha256', key)
      .update(`vaultkeeper-action-state:v2\n${f.nonce}\n${f.overrideId}\n${f.account}\n${f.issuedAt}`)
      .digest();
  return {
    /** True when every instance shares the key, so a MAC mismatch means tampering. */
    shared: secret !== null,
    encode(fields: StateFields): string {
      const issuedMs = new Date(fields.issuedAt).getTime();
      return `v2.${fields.nonce}.${issuedMs}.${mac(fields).toString('base64url')}`;
    },
    /** The nonce and issue time a state names, or null when it is not a state this service issues. */
    parse(state: string): { nonce: string; issuedAt: string } | null {
      const match = STATE_PATTERN.exec(state);
      if (match === null) return null;
      const issued = new Date(Number(match[2]));
      if (Number.isNaN(issued.getTime())) return null;
      return { nonce: match[1] as string, issuedAt: issued.toISOString() };
    },
    verify(state: string, fields: StateFields): boolean {
      const given = STATE_PATTERN.exec(state)?.[3];
      if (given === undefined) return false;
      const expected = mac(fields);
      const actual = Buffer.from(given, 'base64url');
      return actual.length === expected.length && timingSafeEqual(actual, expected);
    },
  };
}

export type StateCodec = ReturnType<typeof createStateCodec>;
