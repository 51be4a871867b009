// The demo wallet (DEMO_MODE, `npm run demo` only): the demo owner's key, which the approval page signs
// with in the browser, and the RPC the demo's chain answers on. Read once at start-up.
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { getBase58Decoder } from '@solana/kit';

export interface DemoWallet {
  /** The demo owner's address (base58 public key). */
  readonly address: string;
  /** solana-keygen's 64 bytes: the ed25519 seed, then the public key. */
  readonly secretKey: readonly number[];
  /** Where the page sends the signed transaction: the demo's own (local) RPC. */
  readonly rpcUrl: string;
  readonly cluster: string;
}

// DER header of an Ed25519 PKCS#8 private key; the 32-byte seed follows.
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

/** Reads a solana-keygen key file; throws naming the file (never its content) when it is not one. */
export function loadDemoWallet(input: { keypairFile: string; rpcUrl: string; cluster: string }): DemoWallet {
  const bytes = readKeypair(input.keypairFile);
  const privateKey = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519, bytes.subarray(0, 32)]),
    format: 'der',
    type: 'pkcs8',
  });
  const publicKey = Buffer.from(createPublicKey(privateKey).export({ format: 'jwk' }).x ?? '', 'base64url');
  if (!publicKey.equals(bytes.subarray(32))) {
    throw new Error(`DEMO_OWNER_KEYPAIR ${input.keypairFile}: its public key does not match its seed`);
  }
  return {
    address: getBase58Decoder().decode(publicKey),
    secretKey: [...bytes],
    rpcUrl: input.rpcUrl,
    cluster: input.cluster,
  };
}

/** The file's 64 bytes; errors name the file and what is wrong, never a part of its content. */
function readKeypair(file: string): Buffer {
  const text = readFileSync(file, 'utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = null;
  }
  const valid =
    Array.isArray(parsed) &&
    parsed.length === 64 &&
    parsed.every((n) => Number.isInteger(n) && n >= 0 && n <= 255);
  if (!valid) throw new Error(`DEMO_OWNER_KEYPAIR ${file} is not a solana-keygen key file (64 numbers)`);
  return Buffer.from(parsed as number[]);
}
