// Wallet signers for the client: anything that signs bytes with an ed25519 key and names its address.
import { toBase58 } from './encoding.js';

/** What the client needs from a wallet: its base58 address and an ed25519 signature of bytes. */
export interface MessageSigner {
  readonly address: string;
  signMessage(message: Uint8Array): Promise<Uint8Array> | Uint8Array;
}

/** The shape of an `@solana/kit` `KeyPairSigner` or `MessagePartialSigner`. */
export interface KitMessagePartialSigner {
  readonly address: string;
  signMessages(
    messages: readonly { content: Uint8Array; signatures: Readonly<Record<string, Uint8Array>> }[],
  ): Promise<readonly Readonly<Record<string, Uint8Array>>[]>;
}

/** An `@solana/kit` `KeyPairSigner` / `MessagePartialSigner` as a MessageSigner. */
export function fromKitSigner(signer: KitMessagePartialSigner): MessageSigner {
  return {
    address: signer.address,
    async signMessage(message) {
      const [dictionary] = await signer.signMessages([{ content: message, signatures: {} }]);
      const signature = dictionary?.[signer.address];
      if (signature === undefined) throw new Error('The signer returned no signature for its address');
      return signature;
    },
  };
}

/** The Wallet Standard `solana:signMessage` feature's method. */
export type WalletStandardSignMessage = (
  ...inputs: { account: { address: string }; message: Uint8Array }[]
) => Promise<readonly { signedMessage: Uint8Array; signature: Uint8Array }[]>;

/** A Wallet Standard account and its wallet's `solana:signMessage` feature as a MessageSigner. */
export function fromWalletStandard(
  account: { readonly address: string },
  signMessage: WalletStandardSignMessage,
): MessageSigner {
  return {
    address: account.address,
    async signMessage(message) {
      const [output] = await signMessage({ account, message });
      if (output === undefined) throw new Error('The wallet returned no signature');
      return output.signature;
    },
  };
}

/** PKCS#8 wrapping of an ed25519 seed (RFC 8410): this prefix, then the 32 seed bytes. */
const PKCS8_ED25519_PREFIX = [
  0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
];

/**
 * Raw ed25519 key bytes as a MessageSigner, signing with Web Crypto: the 32-byte seed, or the 64-byte
 * secret key `solana-keygen` writes (seed ‖ public key). The key is imported non-extractable.
 */
export async function fromSecretKey(secretKey: Uint8Array): Promise<MessageSigner> {
  if (secretKey.length !== 32 && secretKey.length !== 64) {
    throw new TypeError('An ed25519 secret key is 32 bytes (seed) or 64 bytes (seed ‖ public key)');
  }
  const { subtle } = globalThis.crypto;
  const pkcs8 = Uint8Array.from([...PKCS8_ED25519_PREFIX, ...secretKey.subarray(0, 32)]);
  // Extractable once, to read the public key (the JWK's x); the signing key is imported again without.
  const readable = await subtle.importKey('pkcs8', pkcs8, { name: 'Ed25519' }, true, ['sign']);
  const jwk = await subtle.exportKey('jwk', readable);
  const publicKey = Uint8Array.from(atob((jwk.x ?? '').replaceAll('-', '+').replaceAll('_', '/')), (c) =>
    c.charCodeAt(0),
  );
  if (publicKey.length !== 32) throw new Error('Could not derive the public key');
  if (secretKey.length === 64 && toBase58(secretKey.subarray(32)) !== toBase58(publicKey)) {
    throw new TypeError('The last 32 bytes of the secret key are not the public key of its seed');
  }
  const privateKey = await subtle.importKey('pkcs8', pkcs8, { name: 'Ed25519' }, false, ['sign']);
  return {
    address: toBase58(publicKey),
    async signMessage(message) {
      return new Uint8Array(await subtle.sign({ name: 'Ed25519' }, privateKey, new Uint8Array(message)));
    },
  };
}
