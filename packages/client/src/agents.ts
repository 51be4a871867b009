// An agent pays from its vault: the service builds the transfer (after the pre-flight check), the
// caller's signer signs it where the key lives, and the service relays it and answers the outcome.
import { toBase58 } from './encoding.js';
import { type CallOptions, pathSegment as seg, type Transport } from './transport.js';
import type {
  AgentTransferBuild,
  AgentTransferBuildBody,
  AgentTransferResult,
  AgentTransferSendBody,
  TransferCheck,
} from './types.js';

/** A transaction as an `@solana/kit` signer receives it: the message and the signature slots. */
export interface KitTransaction {
  readonly messageBytes: Uint8Array;
  readonly signatures: Readonly<Record<string, Uint8Array | null>>;
}

/**
 * The shape of an `@solana/kit` `TransactionSigner` that signs without sending: a `KeyPairSigner`, any
 * `TransactionPartialSigner` or `TransactionModifyingSigner` (a wallet that may add nothing else).
 */
export interface KitTransactionSigner {
  readonly address: string;
  // `never[]`: kit's own parameter types are branded, so any kit signer fits; the client passes KitTransactions.
  signTransactions?(transactions: readonly never[]): Promise<readonly Readonly<Record<string, Uint8Array>>[]>;
  modifyAndSignTransactions?(transactions: readonly never[]): Promise<readonly KitTransaction[]>;
}

type Sign<R> = (transactions: readonly KitTransaction[]) => Promise<readonly R[]>;

export interface AgentTransferInput {
  vault: string;
  destination: string;
  /** Lamports: a bigint, a safe integer or a decimal string. */
  amount: bigint | number | string;
  /** The vault's agent signer; its key never leaves the caller. */
  signer: KitTransactionSigner;
  /** The same key within 24 h answers the first result and sends nothing: pass one to retry safely. */
  idempotencyKey?: string;
}

/** The relay's answer and the check the build ran. */
export type AgentTransferOutcome = AgentTransferResult & { check: TransferCheck };

export function agentMethods(t: Transport) {
  const path = (vault: string, rest = '') => `/api/vaults/${seg(vault)}/agent-transfers${rest}`;
  const buildTransfer = (vault: string, body: AgentTransferBuildBody, o: CallOptions = {}) =>
    t.request<AgentTransferBuild>({ method: 'POST', path: path(vault), body, ...o });
  const sendTransfer = (vault: string, body: AgentTransferSendBody, o: CallOptions = {}) =>
    t.request<AgentTransferResult>({ method: 'POST', path: path(vault, '/send'), body, ...o });
  return {
    /** The unsigned transfer and its check; a refused check is a VaultkeeperError TRANSFER_REFUSED (409). */
    buildTransfer,
    /** Relays a transfer the agent signed; answers executed, blocked (with the approval's links) or failed. */
    sendTransfer,
    /** check → build → sign locally → send: one call, a definite outcome. */
    async transfer(input: AgentTransferInput, o: CallOptions = {}): Promise<AgentTransferOutcome> {
      const built = await buildTransfer(
        input.vault,
        { destination: input.destination, amount: String(input.amount), agent: input.signer.address },
        o,
      );
      const transaction = await signWireTransaction(built.transaction, input.signer);
      // Without a key of the caller's, one of this call's own: a retry of the send cannot pay twice.
      const key = input.idempotencyKey ?? globalThis.crypto.randomUUID();
      const result = await sendTransfer(input.vault, { transaction, idempotencyKey: key }, o);
      return { ...result, check: built.check };
    },
  };
}

/** Signs a base64 wire transaction in its signer's slot with a Kit signer; answers the signed wire, base64. */
export async function signWireTransaction(base64: string, signer: KitTransactionSigner): Promise<string> {
  const wire = fromBase64(base64);
  const { signers, signaturesOffset, messageBytes } = readWire(wire);
  const slot = signers.indexOf(signer.address);
  if (slot < 0) throw new Error(`The transaction does not ask ${signer.address} to sign`);
  const transaction: KitTransaction = {
    messageBytes,
    signatures: Object.fromEntries(signers.map((a) => [a, null])),
  };
  let signature: Uint8Array | null | undefined;
  if (signer.signTransactions !== undefined) {
    const sign = signer.signTransactions.bind(signer) as Sign<Readonly<Record<string, Uint8Array>>>;
    const [dictionary] = await sign([transaction]);
    signature = dictionary?.[signer.address];
  } else if (signer.modifyAndSignTransactions !== undefined) {
    const modify = signer.modifyAndSignTransactions.bind(signer) as Sign<KitTransaction>;
    const [modified] = await modify([transaction]);
    if (modified === undefined || !sameBytes(modified.messageBytes, messageBytes)) {
      throw new Error('The signer changed the transaction; the service relays only the one it built');
    }
    signature = modified.signatures[signer.address];
  } else {
    throw new TypeError('The signer must sign transactions (signTransactions or modifyAndSignTransactions)');
  }
  if (signature === null || signature === undefined || signature.length !== 64) {
    throw new Error('The signer returned no signature for its address');
  }
  wire.set(signature, signaturesOffset + slot * 64);
  return toBase64(wire);
}

/** compact-u16 (shortvec) at `offset`: the value and the offset after it. */
function readShortVec(bytes: Uint8Array, offset: number): [number, number] {
  let value = 0;
  for (let i = 0; i < 3; i += 1) {
    const byte = bytes[offset + i];
    if (byte === undefined) throw new Error('The transaction is truncated');
    value |= (byte & 0x7f) << (7 * i);
    if ((byte & 0x80) === 0) return [value, offset + i + 1];
  }
  throw new Error('The transaction has a malformed length');
}

/** The wire layout: signature slots, then the message (legacy or versioned) whose first keys sign. */
function readWire(wire: Uint8Array) {
  const [count, signaturesOffset] = readShortVec(wire, 0);
  const messageOffset = signaturesOffset + count * 64;
  const messageBytes = wire.slice(messageOffset);
  const versioned = ((messageBytes[0] ?? 0) & 0x80) !== 0;
  const header = versioned ? 1 : 0;
  const required = messageBytes[header] ?? 0;
  const [keyCount, keysOffset] = readShortVec(messageBytes, header + 3);
  if (required > keyCount || required !== count) throw new Error('The transaction is malformed');
  const signers = Array.from({ length: required }, (_, i) =>
    toBase58(messageBytes.slice(keysOffset + i * 32, keysOffset + (i + 1) * 32)),
  );
  return { signers, signaturesOffset, messageBytes };
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, i) => byte === b[i]);
}

function fromBase64(text: string): Uint8Array {
  return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
}

function toBase64(bytes: Uint8Array): string {
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text);
}
