// The budget's port (domain/budget/vault-chain-state.ts), read fresh: one getMultipleAccounts at
// `confirmed` for the VaultConfig, the deposit address and the Clock sysvar, so all three are of one slot.
// The decoders here also serve the live accounts (live-vault-accounts.ts), which receive the same
// accounts by subscription.
import type { Address } from '@solana/kit';
import type { Logger } from 'pino';
import type {
  VaultAccountState,
  VaultChainState,
  VaultChainStateReader,
} from '../domain/budget/vault-chain-state.js';
import { AccountDecodeError, parseVaultConfigAccount, warnUndecodable } from './accounts.js';
import { CLOCK_SYSVAR_ADDRESS, parseClockSysvarAccount } from './clock-sysvar.js';
import type { SolanaRpc } from './rpc.js';

/** An account as the RPC encodes it with `encoding: 'base64'` (null: it does not exist). */
export type EncodedAccount = {
  readonly owner: Address;
  readonly lamports: bigint;
  readonly data: readonly [string, string];
} | null;

const bytesOf = (account: NonNullable<EncodedAccount>) =>
  new Uint8Array(Buffer.from(account.data[0], 'base64'));

/** A VaultConfig that cannot be read (another layout, or not one at all), with its size in bytes. */
export type OnUndecodable = (error: AccountDecodeError, size: number) => void;

/** The account at a vault address, judged by its owner, size and discriminator. */
export function decodeVaultAccount(
  account: EncodedAccount,
  programId: Address,
  onUndecodable?: OnUndecodable,
): VaultAccountState {
  // A closed account reaches subscribers as an empty system account.
  if (account === null || (account.lamports === 0n && account.data[0] === '')) return { status: 'missing' };
  const data = bytesOf(account);
  try {
    const config = parseVaultConfigAccount({ owner: account.owner, data }, programId);
    return config === null ? { status: 'missing' } : { status: 'found', policy: config };
  } catch (error) {
    if (!(error instanceof AccountDecodeError)) throw error;
    onUndecodable?.(error, data.length);
    return { status: 'invalid' };
  }
}

/** The Clock's unix_timestamp; a node that cannot serve the sysvar cannot be judged by. */
export function decodeClockTime(account: EncodedAccount): bigint {
  if (account === null) throw new Error('the RPC node did not return the Clock sysvar');
  return parseClockSysvarAccount({ owner: account.owner, data: bytesOf(account) }).unixTimestamp;
}

export const balanceOf = (account: EncodedAccount): bigint => (account === null ? 0n : account.lamports);

/** The three accounts of one read, in the order getMultipleAccounts is asked for them. */
export const vaultStateAddresses = (vault: string, depositAddress: string): Address[] => [
  vault as Address,
  depositAddress as Address,
  CLOCK_SYSVAR_ADDRESS,
];

export async function readVaultStateOnce(
  rpc: SolanaRpc,
  programId: Address,
  vault: string,
  depositAddress: string,
  signal: AbortSignal,
  logger?: Pick<Logger, 'warn'>,
): Promise<VaultChainState> {
  const { context, value } = await rpc
    .getMultipleAccounts(vaultStateAddresses(vault, depositAddress), {
      commitment: 'confirmed',
      encoding: 'base64',
    })
    .send({ abortSignal: signal });
  const [vaultAccount = null, depositAccount = null, clockAccount = null] = value as EncodedAccount[];
  return {
    slot: context.slot,
    clockTime: decodeClockTime(clockAccount),
    vault: decodeVaultAccount(
      vaultAccount,
      programId,
      logger && ((error, size) => warnUndecodable(logger, vault, size, error)),
    ),
    balance: balanceOf(depositAccount),
  };
}

/** The reader without live accounts: every call is one getMultipleAccounts. */
export function createVaultStateReader(deps: {
  rpc: SolanaRpc;
  programId: Address;
  logger?: Pick<Logger, 'warn'>;
}): VaultChainStateReader {
  return {
    read: (vault, depositAddress, timeoutMs) =>
      readVaultStateOnce(
        deps.rpc,
        deps.programId,
        vault,
        depositAddress,
        AbortSignal.timeout(timeoutMs),
        deps.logger,
      ),
  };
}
