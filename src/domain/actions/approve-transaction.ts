// The approve Blink's transaction: [create_override,] approve_override, execute_approved_override,
// built from the chain's state at the time of the request (the vault's current override nonce).
import {
  type Address,
  address,
  type GetLatestBlockhashApi,
  type GetMultipleAccountsApi,
  type Instruction,
  type Rpc,
} from '@solana/kit';
import { AppError } from '../../errors.js';
import { BLOCK_REASONS, type BlockReason } from '../transactions/transaction-resource.js';
import { createLatestBlockhashSource } from '../vaults/latest-blockhash.js';
import { vaultNotFound } from '../vaults/vault-reads.js';

/** When no reason was recorded, the program's plain "over the limit" override type is the fit. */
const DEFAULT_REASON: BlockReason = 'exceeded_daily_limit';

type Base = {
  programId: Address;
  authority: Address;
  vaultNonce: bigint;
  vault: Address;
  overrideNonce: bigint;
  pendingOverride: Address;
};

/** The pure chain helpers this flow needs (src/chain/ provides them; passed in to keep domain chain-free). */
export interface ApprovalChain {
  findPendingOverrideAddress(
    programId: Address,
    vault: Address,
    nonce: bigint,
  ): Promise<readonly [Address, ...unknown[]]>;
  findTreasuryAddress(programId: Address): Promise<readonly [Address, ...unknown[]]>;
  decodePendingOverride(data: Uint8Array): { destination: Address; expiresAt: bigint; executed: boolean };
  parseVaultConfigAccount(
    account: { owner: Address; data: Uint8Array } | null,
    programId: Address,
  ): { vaultNonce: bigint; overrideNonce: bigint } | null;
  buildCreateOverrideInstruction(
    input: Base & { destination: Address; amount: bigint; reason: BlockReason },
  ): Promise<Instruction>;
  buildApproveOverrideInstruction(input: Base): Promise<Instruction>;
  buildExecuteApprovedOverrideInstruction(
    input: Base & { destination: Address; vaultAuthority: Address; feeTreasury: Address },
  ): Promise<Instruction>;
  buildUnsignedTransaction(input: {
    feePayer: Address;
    latestBlockhash: { blockhash: string; lastValidBlockHeight: bigint };
    instructions: readonly Instruction[];
    computeUnitLimit?: number;
  }): string;
}

export type ApprovalRpc = Rpc<GetMultipleAccountsApi & GetLatestBlockhashApi>;

export interface ApprovalInput {
  vault: string;
  authority: string;
  /** The vault-authority PDA that holds the SOL, as stored. */
  depositAddress: string;
  /** The nonce of the request's on-chain PendingOverride; null while it has none. */
  chainNonce: bigint | null;
  destination: string;
  amount: bigint;
  reason: string | null;
}

const RPC_TIMEOUT_MS = 8_000;
/** Per vault instruction: about three times what Anchor instructions of this size use. */
const COMPUTE_UNITS_PER_INSTRUCTION = 60_000;

export function createApprovalBuilder(deps: {
  rpc: ApprovalRpc;
  chain: ApprovalChain;
  programId: string;
  now: () => Date;
}) {
  const programId = address(deps.programId);
  const { rpc, chain } = deps;
  // A PDA costs about half a millisecond of CPU to derive; the treasury is a singleton.
  let treasury: Promise<Address> | null = null;
  const ctx: ApprovalContext = {
    ...deps,
    programId,
    getTreasury: () => {
      treasury ??= chain.findTreasuryAddress(programId).then(([found]) => found);
      return treasury;
    },
    latestBlockhash: createLatestBlockhashSource(
      async (signal) =>
        (await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send({ abortSignal: signal })).value,
      { clock: { now: deps.now } },
    ),
  };
  return {
    /**
     * One unsigned transaction (base64) for the authority to sign; the fee payer is the authority.
     * A request already on chain is approved and executed there; any other is created at the vault's
     * current override nonce (the only one the program accepts) first.
     */
    buildApproveTransaction: (input: ApprovalInput) => buildApproveTransaction(ctx, input),
  };
}

interface ApprovalContext {
  readonly rpc: ApprovalRpc;
  readonly chain: ApprovalChain;
  readonly programId: Address;
  readonly now: () => Date;
  readonly getTreasury: () => Promise<Address>;
  readonly latestBlockhash: ReturnType<typeof createLatestBlockhashSource>;
}

type PendingOverrideState = ReturnType<ApprovalChain['decodePendingOverride']>;

async function buildApproveTransaction(
  ctx: ApprovalContext,
  input: ApprovalInput,
): Promise<{ transaction: string; createsOverride: boolean }> {
  const { chain, programId } = ctx;
  const vault = address(input.vault);
  const authority = address(input.authority);
  const linked =
    input.chainNonce === null
      ? null
      : (await chain.findPendingOverrideAddress(programId, vault, input.chainNonce))[0];
  const [{ config, existing }, latest] = await Promise.all([
    readAccounts(ctx, vault, linked),
    onChain(() => ctx.latestBlockhash.get()),
  ]);
  assertApprovable(existing, ctx.now());
  // On chain already: that override. Otherwise the one create_override makes at the current nonce.
  const [overrideNonce, pendingOverride] =
    existing && linked !== null && input.chainNonce !== null
      ? [input.chainNonce, linked]
      : [
          config.overrideNonce,
          (await chain.findPendingOverrideAddress(programId, vault, config.overrideNonce))[0],
        ];
  const base: Base = {
    programId,
    authority,
    vaultNonce: config.vaultNonce,
    vault,
    overrideNonce,
    pendingOverride,
  };
  const instructions = await buildInstructions(ctx, base, input, existing);
  const transaction = chain.buildUnsignedTransaction({
    feePayer: authority,
    latestBlockhash: latest,
    instructions,
    computeUnitLimit: COMPUTE_UNITS_PER_INSTRUCTION * instructions.length,
  });
  return { transaction, createsOverride: !existing };
}

/** An override already on chain must be neither executed nor expired. */
function assertApprovable(existing: PendingOverrideState | null, now: Date): void {
  if (existing?.executed) {
    throw new AppError('OVERRIDE_NOT_PENDING', 'Override was already executed on-chain', {
      status: 'executed',
    });
  }
  if (existing && existing.expiresAt * 1000n <= BigInt(now.getTime())) {
    throw new AppError('OVERRIDE_EXPIRED', 'Override has expired and can no longer be approved', {
      expiresAt: new Date(Number(existing.expiresAt) * 1000).toISOString(),
    });
  }
}

/** [create_override,] approve_override, execute_approved_override. */
async function buildInstructions(
  ctx: ApprovalContext,
  base: Base,
  input: ApprovalInput,
  existing: PendingOverrideState | null,
): Promise<Instruction[]> {
  const { chain } = ctx;
  // The program pays out to the destination recorded on-chain, so that is the account to pass.
  const destination = existing?.destination ?? address(input.destination);
  const instructions: Instruction[] = [];
  if (!existing) {
    const reason = toBlockReason(input.reason);
    instructions.push(
      await chain.buildCreateOverrideInstruction({ ...base, destination, amount: input.amount, reason }),
    );
  }
  instructions.push(
    await chain.buildApproveOverrideInstruction(base),
    await chain.buildExecuteApprovedOverrideInstruction({
      ...base,
      destination,
      vaultAuthority: address(input.depositAddress),
      feeTreasury: await ctx.getTreasury(),
    }),
  );
  return instructions;
}

/** The VaultConfig and (when there is one) the request's PendingOverride, in one RPC call. */
async function readAccounts(ctx: ApprovalContext, vault: Address, pendingOverride: Address | null) {
  const signal = AbortSignal.timeout(RPC_TIMEOUT_MS);
  const keys = pendingOverride === null ? [vault] : [vault, pendingOverride];
  const { value } = await onChain(() =>
    ctx.rpc
      .getMultipleAccounts(keys, { encoding: 'base64', commitment: 'confirmed' })
      .send({ abortSignal: signal }),
  );
  const [vaultAccount, overrideAccount] = value.map((account) =>
    account === null
      ? null
      : { owner: account.owner, data: new Uint8Array(Buffer.from(account.data[0], 'base64')) },
  );
  const config = decodeAccount(() => ctx.chain.parseVaultConfigAccount(vaultAccount ?? null, ctx.programId));
  if (config === null) throw vaultNotFound(vault, 'account_not_found');
  const existing = overrideAccount ? decodeOverride(ctx, overrideAccount) : null;
  return { config, existing };
}

function decodeOverride(ctx: ApprovalContext, account: { owner: Address; data: Uint8Array }) {
  // Lamports sent to the PDA before create_override leave a system account there: not created yet.
  if (account.owner !== ctx.programId) return null;
  return decodeAccount(() => ctx.chain.decodePendingOverride(account.data));
}

function decodeAccount<T>(decode: () => T): T {
  try {
    return decode();
  } catch (error) {
    throw new AppError(
      'CHAIN_UNAVAILABLE',
      'A vault program account could not be decoded',
      {},
      { cause: error },
    );
  }
}

export type ApprovalBuilder = ReturnType<typeof createApprovalBuilder>;

function toBlockReason(reason: string | null): BlockReason {
  return reason !== null && (BLOCK_REASONS as readonly string[]).includes(reason)
    ? (reason as BlockReason)
    : DEFAULT_REASON;
}

/** Runs RPC reads; any transport or node failure becomes 503 CHAIN_UNAVAILABLE. */
async function onChain<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw new AppError('CHAIN_UNAVAILABLE', 'The Solana RPC node is unavailable', {}, { cause: error });
  }
}
