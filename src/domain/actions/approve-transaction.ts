// The approve Blink's transaction: [create_override,] approve_override, execute_approved_override.
import {
  type Address,
  address,
  type GetAccountInfoApi,
  type GetLatestBlockhashApi,
  type Instruction,
  type Rpc,
} from '@solana/kit';
import { AppError } from '../../errors.js';

export type ApprovalBlockReason = 'not_whitelisted' | 'exceeded_daily_limit' | 'insufficient_funds';
const BLOCK_REASONS: readonly string[] = ['not_whitelisted', 'exceeded_daily_limit', 'insufficient_funds'];
/** When no reason was recorded, the program's plain "over the limit" override type is the fit. */
const DEFAULT_REASON: ApprovalBlockReason = 'exceeded_daily_limit';

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
  ): { vaultNonce: bigint } | null;
  buildCreateOverrideInstruction(
    input: Base & { destination: Address; amount: bigint; reason: ApprovalBlockReason },
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

export type ApprovalRpc = Rpc<GetAccountInfoApi & GetLatestBlockhashApi>;

export interface ApprovalInput {
  vault: string;
  authority: string;
  /** The vault-authority PDA that holds the SOL, as stored. */
  depositAddress: string;
  /** VaultConfig.vault_nonce as stored; null until ingestion read the account (then it is read here). */
  vaultNonce: bigint | null;
  overrideNonce: bigint;
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
  const getTreasury = () => {
    treasury ??= chain.findTreasuryAddress(programId).then(([found]) => found);
    return treasury;
  };

  async function readAccount(target: Address, signal: AbortSignal) {
    const { value } = await rpc
      .getAccountInfo(target, { encoding: 'base64', commitment: 'confirmed' })
      .send({ abortSignal: signal });
    if (value === null) return null;
    return { owner: value.owner, data: new Uint8Array(Buffer.from(value.data[0], 'base64')) };
  }

  async function readVaultNonce(vault: Address, signal: AbortSignal): Promise<bigint> {
    const config = chain.parseVaultConfigAccount(await readAccount(vault, signal), programId);
    if (config === null) throw new AppError('VAULT_NOT_FOUND', 'Vault account does not exist on-chain');
    return config.vaultNonce;
  }

  return {
    /** One unsigned transaction (base64) for the authority to sign; the fee payer is the authority. */
    async buildApproveTransaction(
      input: ApprovalInput,
    ): Promise<{ transaction: string; createsOverride: boolean }> {
      const vault = address(input.vault);
      const authority = address(input.authority);
      const [pendingOverride] = await chain.findPendingOverrideAddress(programId, vault, input.overrideNonce);
      const signal = AbortSignal.timeout(RPC_TIMEOUT_MS);
      const [account, latest, vaultNonce] = await onChain(() =>
        Promise.all([
          readAccount(pendingOverride, signal),
          rpc.getLatestBlockhash({ commitment: 'confirmed' }).send({ abortSignal: signal }),
          input.vaultNonce ?? readVaultNonce(vault, signal),
        ]),
      );
      const onChainOverride = account === null ? null : decodeOverride(account);
      if (onChainOverride?.executed) {
        throw new AppError('OVERRIDE_NOT_PENDING', 'Override was already executed on-chain', {
          status: 'executed',
        });
      }
      if (onChainOverride !== null && onChainOverride.expiresAt * 1000n <= BigInt(deps.now().getTime())) {
        throw new AppError('OVERRIDE_EXPIRED', 'Override has expired and can no longer be approved', {
          expiresAt: new Date(Number(onChainOverride.expiresAt) * 1000).toISOString(),
        });
      }
      // The program pays out to the destination recorded on-chain, so that is the account to pass.
      const destination = onChainOverride?.destination ?? address(input.destination);
      const base: Base = {
        programId,
        authority,
        vaultNonce,
        vault,
        overrideNonce: input.overrideNonce,
        pendingOverride,
      };
      const instructions: Instruction[] = [];
      if (onChainOverride === null) {
        instructions.push(
          await chain.buildCreateOverrideInstruction({
            ...base,
            destination,
            amount: input.amount,
            reason: toBlockReason(input.reason),
          }),
        );
      }
      instructions.push(
        await chain.buildApproveOverrideInstruction(base),
        await chain.buildExecuteApprovedOverrideInstruction({
          ...base,
          destination,
          vaultAuthority: address(input.depositAddress),
          feeTreasury: await getTreasury(),
        }),
      );
      const transaction = chain.buildUnsignedTransaction({
        feePayer: authority,
        latestBlockhash: latest.value,
        instructions,
        computeUnitLimit: COMPUTE_UNITS_PER_INSTRUCTION * instructions.length,
      });
      return { transaction, createsOverride: onChainOverride === null };
    },
  };

  function decodeOverride(account: { owner: Address; data: Uint8Array }) {
    // Lamports sent to the PDA before create_override leave a system account there: not created yet.
    if (account.owner !== programId) return null;
    try {
      return chain.decodePendingOverride(account.data);
    } catch (error) {
      throw new AppError(
        'CHAIN_UNAVAILABLE',
        'Pending override account could not be decoded',
        {},
        { cause: error },
      );
    }
  }
}

export type ApprovalBuilder = ReturnType<typeof createApprovalBuilder>;

function toBlockReason(reason: string | null): ApprovalBlockReason {
  return reason !== null && BLOCK_REASONS.includes(reason) ? (reason as ApprovalBlockReason) : DEFAULT_REASON;
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
