import {
  type AccountMeta,
  type Address,
  address,
  appendTransactionMessageInstructions,
  blockhash,
  compileTransaction,
  createTransactionMessage,
  getBase58Decoder,
  getBase64EncodedWireTransaction,
  getCompiledTransactionMessageDecoder,
  getInstructionsFromCompiledTransactionMessage,
  getTransactionDecoder,
  getU32Encoder,
  getU64Encoder,
  type Instruction,
  isSignerRole,
  isWritableRole,
  pipe,
  type ReadonlyUint8Array,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
} from '@solana/kit';
import { COMPUTE_BUDGET_PROGRAM_ADDRESS } from './program.js';

/** ComputeBudget SetComputeUnitLimit: discriminator 2 then the limit as u32 LE. */
function buildSetComputeUnitLimitInstruction(units: number): Instruction {
  const data = new Uint8Array(5);
  data[0] = 2;
  data.set(getU32Encoder().encode(units), 1);
  return { programAddress: COMPUTE_BUDGET_PROGRAM_ADDRESS, data };
}

/** ComputeBudget SetComputeUnitPrice: discriminator 3 then µlamports per compute unit as u64 LE. */
function buildSetComputeUnitPriceInstruction(microLamports: bigint): Instruction {
  const data = new Uint8Array(9);
  data[0] = 3;
  data.set(getU64Encoder().encode(microLamports), 1);
  return { programAddress: COMPUTE_BUDGET_PROGRAM_ADDRESS, data };
}

export type LatestBlockhash = { blockhash: string; lastValidBlockHeight: bigint };

/**
 * Compiles an unsigned transaction and returns it in wire format, base64. Every signature slot is
 * zeroed, as wallets expect for a transaction they are asked to sign.
 */
export function buildUnsignedTransaction(input: {
  feePayer: Address;
  latestBlockhash: LatestBlockhash;
  instructions: readonly Instruction[];
  computeUnitLimit?: number;
  /** µlamports per compute unit; the SetComputeUnitPrice instruction follows the limit. */
  computeUnitPrice?: bigint;
  version?: 'legacy' | 0;
}): string {
  const budget = [
    ...(input.computeUnitLimit === undefined
      ? []
      : [buildSetComputeUnitLimitInstruction(input.computeUnitLimit)]),
    ...(input.computeUnitPrice === undefined
      ? []
      : [buildSetComputeUnitPriceInstruction(input.computeUnitPrice)]),
  ];
  const message = pipe(
    createTransactionMessage({ version: input.version ?? 0 }),
    (m) => setTransactionMessageFeePayer(input.feePayer, m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        {
          blockhash: blockhash(input.latestBlockhash.blockhash),
          lastValidBlockHeight: input.latestBlockhash.lastValidBlockHeight,
        },
        m,
      ),
    (m) => appendTransactionMessageInstructions([...budget, ...input.instructions], m),
  );
  return getBase64EncodedWireTransaction(compileTransaction(message));
}

export type DecodedAccount = { address: Address; isSigner: boolean; isWritable: boolean };
export type DecodedTransactionInstruction = {
  programAddress: Address;
  accounts: DecodedAccount[];
  data: Uint8Array;
};
export type DecodedTransaction = {
  version: 'legacy' | 0 | 1;
  feePayer: Address;
  blockhash: string;
  /** Signers in message order; signature is base58, or null for an empty (zeroed) slot. */
  signatures: { address: Address; signature: string | null }[];
  /** The static account keys of the message, in order, and the header that gives their roles. */
  accountKeys: Address[];
  header: {
    numSignerAccounts: number;
    numReadonlySignerAccounts: number;
    numReadonlyNonSignerAccounts: number;
  };
  instructions: DecodedTransactionInstruction[];
  /** The exact bytes the signatures sign. */
  messageBytes: Uint8Array;
  /** Raw signature bytes in signer order (null for an empty slot), for verification. */
  signatureBytes: (Uint8Array | null)[];
};

const base58 = getBase58Decoder();

/**
 * Decodes a wire-format transaction (legacy or v0 without lookup tables). Throws on bytes that are
 * not a transaction.
 */
export function decodeTransactionBytes(bytes: ReadonlyUint8Array): DecodedTransaction {
  const tx = getTransactionDecoder().decode(bytes);
  const compiled = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
  if ('addressTableLookups' in compiled && (compiled.addressTableLookups?.length ?? 0) > 0) {
    throw new TypeError('transactions with address lookup tables are not supported');
  }
  const instructions = getInstructionsFromCompiledTransactionMessage(compiled).map((ix) => ({
    programAddress: ix.programAddress,
    accounts: (ix.accounts ?? []).map((meta: AccountMeta) => ({
      address: meta.address,
      isSigner: isSignerRole(meta.role),
      isWritable: isWritableRole(meta.role),
    })),
    data: new Uint8Array(ix.data ?? new Uint8Array()),
  }));
  const signers = Object.entries(tx.signatures);
  const feePayer = compiled.staticAccounts[0];
  if (feePayer === undefined) throw new TypeError('transaction has no fee payer');
  return {
    version: compiled.version,
    feePayer,
    blockhash: compiled.lifetimeToken,
    signatures: signers.map(([signer, sig]) => ({
      address: address(signer),
      signature: sig === null || sig.every((b) => b === 0) ? null : base58.decode(sig),
    })),
    accountKeys: [...compiled.staticAccounts],
    header: { ...compiled.header },
    instructions,
    messageBytes: new Uint8Array(tx.messageBytes),
    signatureBytes: signers.map(([, sig]) =>
      sig === null || sig.every((b) => b === 0) ? null : new Uint8Array(sig),
    ),
  };
}

/** Decodes a base64 wire transaction, e.g. one built by buildUnsignedTransaction. */
export function decodeTransactionBase64(b64: string): DecodedTransaction {
  return decodeTransactionBytes(new Uint8Array(Buffer.from(b64, 'base64')));
}
