// Signs requests the way a wallet does: ed25519 over the UTF-8 authentication message.
import { generateKeyPairSync, type KeyObject, sign } from 'node:crypto';
import { getBase58Decoder } from '@solana/kit';

const base58 = getBase58Decoder();

export interface TestWallet {
  readonly address: string;
  readonly privateKey: KeyObject;
  /** Signs bytes, returning the 64-byte signature. */
  sign(message: Uint8Array | string): Uint8Array;
  /** The three wallet-auth headers for one request (a fresh timestamp unless given). */
  authHeaders(options?: {
    timestampMs?: number;
    form?: 'escaped' | 'percent' | 'base64';
    message?: string;
  }): Record<string, string>;
}

export function createTestWallet(): TestWallet {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url');
  const address = base58.decode(raw);
  const signBytes = (message: Uint8Array | string) =>
    new Uint8Array(
      sign(null, typeof message === 'string' ? Buffer.from(message, 'utf8') : message, privateKey),
    );
  return {
    address,
    privateKey,
    sign: signBytes,
    authHeaders(options = {}) {
      const message =
        options.message ??
        `Sign this message to authenticate with Vaultkeeper.\n\nTimestamp: ${options.timestampMs ?? Date.now()}`;
      const form = options.form ?? 'escaped';
      const header =
        form === 'base64'
          ? `base64:${Buffer.from(message, 'utf8').toString('base64')}`
          : form === 'percent'
            ? encodeURIComponent(message)
            : message.replaceAll('\n', '\\n');
      return {
        'x-wallet-address': address,
        'x-signature': base58.decode(signBytes(message)),
        'x-message': header,
      };
    },
  };
}
