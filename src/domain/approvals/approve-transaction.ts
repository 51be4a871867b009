// The approving transaction: [create_override,] approve_override, execute_approved_override,
// built from the chain's state at the time of the request (the vault's current override nonce).
import { type Address, address, type GetMultipleAccountsApi, type Instruction, type Rpc } from '@solana/kit';
import { AppError } from '../../errors.js';
import { onRpc, type TransactionLanding } from '../landing/transaction-landing.js';
import { BLOCK_REASONS, type BlockReason } from '../transactions/transaction-resource.js';
import { vaultNotFound } from '../vaults/vault-reads.js';
import { explainApproveFailure } from './approve-failures.js';

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
  decodePendingOverride(data: Uint8Array): {
    destination: Address;
    expiresAt: bigint;
    executed: boolean;
    requestedAmount: bigint;
  };
  parseVaultConfigAccount(
    account: { owner: Address; data: Uint8Array } | null,
    programId: Address,
  ): { vaultNonce: bigint; overrideNonce: bigint; feeBasisPoints: number } | null;
  buildCreateOverrideInstruction(
    input: Base & { destination: Address; amount: bigint; reason: BlockReason },
  ): Promise<Instruction>;
  buildApproveOverrideInstruction(input: Base): Promise<Instruction>;
  buildExecuteApprovedOverrideInstruction(
    input: Base & { destination: Address; vaultAuthority: Address; feeTreasury: Address },
  ): Promise<Instruction>;
}

export type ApprovalRpc = Rpc<GetMultipleAccountsApi>;

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

export function createApprovalBuilder(deps: {
  rpc: ApprovalRpc;
  chain: ApprovalChain;
  programId: string;
  now: () => Date;
  landing: TransactionLanding;
}) {
  const programId = address(deps.programId);
  const { chain } = deps;
  // A PDA costs about half a millisecond of CPU to derive; the treasury is a singleton.
  let treasury: Promise<Address> | null = null;
  const ctx: ApprovalContext = {
    ...deps,
    programId,
    getTreasury: () => {
      treasury ??= chain.findTreasuryAddress(programId).then(([found]) => found);
      return treasury;
    },
  };
  return {
    /**
     * One unsigned transaction (base64) for the authority to sign, simulated and priced; the fee payer
     * is the authority. A request already on chain is approved and executed there; any other is
     * created at the vault's current override nonce (the only one the program accepts) first.
     * A transaction that would fail is 422 SIMULATION_FAILED.
     */
    buildApproveTransaction: async (input: ApprovalInput) => {
      const plan = await planApproval(ctx, input);
      return deps.landing.prepare(plan.request);
    },
    /** The same transaction simulated for the preview: fees, balance changes, or the failure in words. */
    previewApproveTransaction: async (input: ApprovalInput) => {
      const plan = await planApproval(ctx, input);
      const outcome = await deps.landing.simulate({
        ...plan.request,
        watch: [input.depositAddress, input.destination, await ctx.getTreasury()],
      });
      return { outcome, roles: ['payer', 'vault', 'destination', 'treasury'] as const };
    },
  };
}

interface ApprovalContext {
  readonly rpc: ApprovalRpc;
  readonly chain: ApprovalChain;
  readonly programId: Address;
  readonly now: () => Date;
  readonly getTreasury: () => Promise<Address>;
}

type PendingOverrideState = ReturnType<ApprovalChain['decodePendingOverride']>;

/** The landing request of an approve: the chain reads and instructions, and the failure sentences. */
async function planApproval(ctx: ApprovalContext, input: ApprovalInput) {
  const { chain, programId } = ctx;
  const vault = address(input.vault);
  const authority = address(input.authority);
  const linked =
    input.chainNonce === null
      ? null
      : (await chain.findPendingOverrideAddress(programId, vault, input.chainNonce))[0];
  const treasury = await ctx.getTreasury();
  // Filled by the reads, for the failure sentences.
  const facts = { vaultLamports: null as bigint | null, feeBasisPoints: 0, amount: input.amount };
  const build = async (): Promise<Instruction[]> => {
    const { config, existing, depositLamports } = await readAccounts(
      ctx,
      vault,
      linked,
      input.depositAddress,
    );
    facts.vaultLamports = depositLamports;
    facts.feeBasisPoints = config.feeBasisPoints;
    if (existing !== null) facts.amount = existing.requestedAmount;
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
    return buildInstructions(ctx, base, input, existing);
  };
  const writableAccounts = [
    vault,
    authority,
    ...(linked === null ? [] : [linked]),
    input.depositAddress,
    input.destination,
    treasury,
  ];
  return {
    request: {
      feePayer: authority,
      writableAccounts,
      build,
      explain: (failure: Parameters<typeof explainApproveFailure>[0]) =>
        explainApproveFailure(failure, facts),
    },
  };
}

/**
 * An override already on chain must not have expired by our clock (409, as for the stored expiry).
 * Everything else the chain knows (executed, paused, funds, nonce) the program decides in the simulation.
 */
function assertApprovable(existing: PendingOverrideState | null, now: Date): void {
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

/** The VaultConfig, the deposit address's balance and (when there is one) the request's PendingOverride, in one RPC call. */
async function readAccounts(
  ctx: ApprovalContext,
  vault: Address,
  pendingOverride: Address | null,
  depositAddress: string,
) {
  const signal = AbortSignal.timeout(RPC_TIMEOUT_MS);
  const keys = [vault, address(depositAddress), ...(pendingOverride === null ? [] : [pendingOverride])];
  const { value } = await onRpc(() =>
    ctx.rpc
      .getMultipleAccounts(keys, { encoding: 'base64', commitment: 'confirmed' })
      .send({ abortSignal: signal }),
  );
  const depositLamports = value[1] === null || value[1] === undefined ? 0n : BigInt(value[1].lamports);
  const [vaultAccount, , overrideAccount] = value.map((account) =>
    account === null
      ? null
      : { owner: account.owner, data: new Uint8Array(Buffer.from(account.data[0], 'base64')) },
  );
  const config = decodeAccount(() => ctx.chain.parseVaultConfigAccount(vaultAccount ?? null, ctx.programId));
  if (config === null) throw vaultNotFound(vault, 'account_not_found');
  const existing = overrideAccount ? decodeOverride(ctx, overrideAccount) : null;
  return { config, existing, depositLamports };
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
      'RPC_UNAVAILABLE',
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
