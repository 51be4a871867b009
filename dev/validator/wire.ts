import { createPublicKey, type KeyObject, verify } from 'node:crypto';
import {
  type AccountMeta,
  type Address,
  getAddressEncoder,
  getBase58Decoder,
  getCompiledTransactionMessageDecoder,
  getInstructionsFromCompiledTransactionMessage,
  getTransactionDecoder,
  isSignerRole,
  isWritableRole,
} from '@solana/kit';
import type { TxInstruction } from './state.js';

/** Transactions as the node receives them: wire bytes decoded with kit, signatures checked with node:crypto. */

export type WireTransaction = {
  version: 'legacy' | 0 | 1;
  feePayer: Address;
  blockhash: string;
  /** Signers in message order; signature is base58, or null for an empty (zeroed) slot. */
  signatures: { address: Address; signature: string | null }[];
  accountKeys: Address[];
  header: {
    numSignerAccounts: number;
    numReadonlySignerAccounts: number;
    numReadonlyNonSignerAccounts: number;
  };
  instructions: TxInstruction[];
  /** The exact bytes the signatures sign. */
  messageBytes: Uint8Array;
  /** Raw signature bytes in signer order (null for an empty slot). */
  signatureBytes: (Uint8Array | null)[];
};

const base58 = getBase58Decoder();
const transactionDecoder = getTransactionDecoder();
const messageDecoder = getCompiledTransactionMessageDecoder();

/** Decodes a wire transaction (legacy or v0 without lookup tables); throws on bytes that are not one. */
export function decodeWireTransaction(bytes: Uint8Array): WireTransaction {
  const tx = transactionDecoder.decode(bytes);
  const compiled = messageDecoder.decode(tx.messageBytes);
  if ('addressTableLookups' in compiled && (compiled.addressTableLookups?.length ?? 0) > 0) {
    throw new TypeError('transactions with address lookup tables are not supported');
  }
  const feePayer = compiled.staticAccounts[0];
  if (feePayer === undefined) throw new TypeError('transaction has no fee payer');
  const signers = Object.entries(tx.signatures).map(([signer, sig]) => {
    const empty = sig === null || sig.every((b) => b === 0);
    return { address: signer as Address, bytes: empty ? null : new Uint8Array(sig) };
  });
  return {
    version: compiled.version,
    feePayer,
    blockhash: compiled.lifetimeToken,
    signatures: signers.map((s) => ({
      address: s.address,
      signature: s.bytes === null ? null : base58.decode(s.bytes),
    })),
    accountKeys: [...compiled.staticAccounts],
    header: { ...compiled.header },
    instructions: getInstructionsFromCompiledTransactionMessage(compiled).map((ix) => ({
      programAddress: ix.programAddress,
      accounts: (ix.accounts ?? []).map((meta: AccountMeta) => ({
        address: meta.address,
        isSigner: isSignerRole(meta.role),
        isWritable: isWritableRole(meta.role),
      })),
      data: new Uint8Array(ix.data ?? new Uint8Array()),
    })),
    messageBytes: new Uint8Array(tx.messageBytes),
    signatureBytes: signers.map((s) => s.bytes),
  };
}

const keys = new Map<Address, KeyObject>();
const addressEncoder = getAddressEncoder();

/** The ed25519 key of an address (imported through JWK, the fast way, and kept). */
function publicKeyOf(address: Address): KeyObject {
  let key = keys.get(address);
  if (key === undefined) {
    const x = Buffer.from(addressEncoder.encode(address)).toString('base64url');
    key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
    if (keys.size >= 10_000) keys.clear();
    keys.set(address, key);
  }
  return key;
}

/** Whether `signature` is the address's ed25519 signature of `message` (checked on the thread pool). */
export function verifySignature(
  address: Address,
  message: Uint8Array,
  signature: Uint8Array,
): Promise<boolean> {
  if (signature.length !== 64) return Promise.resolve(false);
  let key: KeyObject;
  try {
    key = publicKeyOf(address);
  } catch {
    return Promise.resolve(false);
  }
  return new Promise((resolve) => {
    verify(null, message, key, signature, (error, ok) => resolve(error === null && ok));
  });
}
