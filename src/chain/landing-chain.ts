// The landing port (domain/landing/landing-port.ts) over the Solana RPC: blockhash, recent
// prioritization fees, balances, simulateTransaction and signature statuses; the wire codecs; the program's errors.
import {
  AccountRole,
  type Address,
  address,
  type Instruction,
  isWritableRole,
  type Signature,
} from '@solana/kit';
import type { ApprovedTransfer, LandingChain, ProgramErrorInfo } from '../domain/landing/landing-port.js';
import { decodeInstruction } from './instruction-codecs.js';
import { COMPUTE_BUDGET_PROGRAM_ADDRESS, PROGRAM_ERRORS, SYSTEM_PROGRAM_ADDRESS } from './program.js';
import type { SolanaRpc } from './rpc.js';
import { buildUnsignedTransaction, decodeTransactionBytes } from './solana-transactions.js';

/** The Anchor framework's errors a vault program instruction can fail with (anchor-lang's ErrorCode). */
const ANCHOR_ERRORS: readonly ProgramErrorInfo[] = [
  { code: 100, name: 'InstructionMissing', message: '8 byte instruction identifier not provided' },
  { code: 101, name: 'InstructionFallbackNotFound', message: 'Fallback functions are not supported' },
  {
    code: 102,
    name: 'InstructionDidNotDeserialize',
    message: 'The program could not deserialize the given instruction',
  },
  { code: 2000, name: 'ConstraintMut', message: 'A mut constraint was violated' },
  { code: 2001, name: 'ConstraintHasOne', message: 'A has one constraint was violated' },
  { code: 2002, name: 'ConstraintSigner', message: 'A signer constraint was violated' },
  { code: 2006, name: 'ConstraintSeeds', message: 'A seeds constraint was violated' },
  {
    code: 3012,
    name: 'AccountNotInitialized',
    message: 'The program expected this account to be already initialized',
  },
];

const VAULT_ERRORS: readonly ProgramErrorInfo[] = Object.entries(PROGRAM_ERRORS).map(([name, e]) => ({
  name,
  code: e.code,
  message: e.message,
}));

const BUILTIN_NAMES: Record<string, Record<number, string>> = {
  [COMPUTE_BUDGET_PROGRAM_ADDRESS]: { 2: 'SetComputeUnitLimit', 3: 'SetComputeUnitPrice' },
  [SYSTEM_PROGRAM_ADDRESS]: { 0: 'CreateAccount', 2: 'Transfer' },
};

export function createLandingChain(rpc: SolanaRpc, programId: Address): LandingChain {
  return {
    getTransaction: (signature, signal) => readRecordedTransaction(rpc, signature, signal),
    async getSignatureStatus(signature, { searchHistory }, signal) {
      const { value } = await rpc
        .getSignatureStatuses([signature as Signature], { searchTransactionHistory: searchHistory })
        .send({ abortSignal: signal });
      const status = value[0] ?? null;
      return status === null ? null : { confirmationStatus: status.confirmationStatus, err: status.err };
    },
    async getLatestBlockhash(signal) {
      return (await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send({ abortSignal: signal })).value;
    },
    async getRecentPrioritizationFees(accounts, signal) {
      const fees = await rpc
        .getRecentPrioritizationFees(accounts.map((a) => address(a)))
        .send({ abortSignal: signal });
      return fees.map((f) => BigInt(f.prioritizationFee));
    },
    async getBalances(accounts, signal) {
      const { value } = await rpc
        .getMultipleAccounts(
          accounts.map((a) => address(a)),
          { encoding: 'base64', commitment: 'confirmed', dataSlice: { offset: 0, length: 0 } },
        )
        .send({ abortSignal: signal });
      return value.map((account) => (account === null ? null : BigInt(account.lamports)));
    },
    async simulateTransaction(transaction, accounts, signal) {
      const { value } = await rpc
        .simulateTransaction(transaction as Parameters<SolanaRpc['simulateTransaction']>[0], {
          encoding: 'base64',
          sigVerify: false,
          replaceRecentBlockhash: true,
          commitment: 'confirmed',
          accounts: { addresses: accounts.map((a) => address(a)), encoding: 'base64' },
        })
        .send({ abortSignal: signal });
      return {
        err: value.err,
        logs: value.logs ?? [],
        unitsConsumed: Number(value.unitsConsumed ?? 0n),
        lamports: (value.accounts ?? []).map((account) =>
          account === null ? null : BigInt(account.lamports),
        ),
      };
    },
    compileTransaction(input) {
      return buildUnsignedTransaction({
        feePayer: address(input.feePayer),
        latestBlockhash: input.latestBlockhash,
        instructions: input.instructions,
        computeUnitLimit: input.computeUnitLimit,
        ...(input.computeUnitPrice === null ? {} : { computeUnitPrice: input.computeUnitPrice }),
      });
    },
    listWritableAccounts(feePayer, instructions) {
      const writable = new Set([feePayer]);
      for (const ix of instructions) {
        for (const meta of ix.accounts ?? []) if (isWritableRole(meta.role)) writable.add(meta.address);
      }
      return [...writable];
    },
    findApprovedTransfers: (instructions) => findApprovedTransfers(instructions, programId),
    nameInstructions: (instructions) => instructions.map((ix) => nameInstruction(ix, programId)),
    findProgramError(program, code) {
      if (program !== programId) return null;
      return VAULT_ERRORS.find((e) => e.code === code) ?? ANCHOR_ERRORS.find((e) => e.code === code) ?? null;
    },
  };
}

function nameInstruction(ix: Instruction, programId: Address): string {
  const data = ix.data ?? new Uint8Array();
  if (ix.programAddress === programId) return decodeInstruction(data)?.name ?? 'unknown';
  return BUILTIN_NAMES[ix.programAddress]?.[data[0] ?? -1] ?? 'unknown';
}

function roleOf(meta: { isSigner: boolean; isWritable: boolean }): AccountRole {
  if (meta.isSigner) return meta.isWritable ? AccountRole.WRITABLE_SIGNER : AccountRole.READONLY_SIGNER;
  return meta.isWritable ? AccountRole.WRITABLE : AccountRole.READONLY;
}

async function readRecordedTransaction(rpc: SolanaRpc, signature: string, signal: AbortSignal) {
  const found = await rpc
    .getTransaction(signature as Signature, {
      commitment: 'confirmed',
      encoding: 'base64',
      maxSupportedTransactionVersion: 0,
    })
    .send({ abortSignal: signal });
  if (found === null) return null;
  const tx = decodeTransactionBytes(new Uint8Array(Buffer.from(found.transaction[0], 'base64')));
  const instructions: Instruction[] = tx.instructions.map((ix) => ({
    programAddress: ix.programAddress,
    data: ix.data,
    accounts: ix.accounts.map((meta) => ({ address: meta.address, role: roleOf(meta) })),
  }));
  return {
    err: found.meta?.err ?? null,
    logs: found.meta?.logMessages ?? [],
    feePayer: tx.feePayer,
    instructions,
  };
}

/** execute_approved_override instructions of the program, with the amount of the create_override of the same override. */
function findApprovedTransfers(instructions: readonly Instruction[], programId: Address): ApprovedTransfer[] {
  const decoded = instructions
    .filter((ix) => ix.programAddress === programId)
    .map((ix) => ({ ix, decoded: decodeInstruction(ix.data ?? new Uint8Array()) }));
  const key = (ix: Instruction, i: number) => ix.accounts?.[i]?.address ?? '';
  return decoded.flatMap(({ ix, decoded: d }) => {
    if (d?.name !== 'execute_approved_override') return [];
    const created = decoded.find(
      (c) => c.decoded?.name === 'create_override' && key(c.ix, 2) === key(ix, 1),
    )?.decoded;
    return [
      {
        vault: key(ix, 0),
        pendingOverride: key(ix, 1),
        authority: key(ix, 2),
        destination: key(ix, 4),
        createdAmount: created?.name === 'create_override' ? created.args.amount : null,
      },
    ];
  });
}
