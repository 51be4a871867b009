// Live vault figures: balance and the daily spending window read from the chain, never cached.
import type { Address, GetAccountInfoApi, GetBalanceApi, Rpc } from '@solana/kit';
import { sql } from 'drizzle-orm';
import { AppError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import { type Queryable, queryRows } from '../../storage/database.js';
import { WINDOW_SECONDS } from '../policy/program-limits.js';
import { vaultNotFound } from '../vaults/vault-reads.js';
import type { RealtimeReport } from './analytics-resource.js';

/** The daily window fields of a VaultConfig account. */
export interface VaultWindow {
  dailyLimit: bigint;
  spentToday: bigint;
  /** Unix seconds when the current window started. */
  lastReset: bigint;
}

/**
 * Decodes the account at the vault address (null when it does not exist); throws when the account
 * is not a VaultConfig of the program. Passed in: the codec lives in chain/.
 */
export type VaultWindowDecoder = (
  account: { owner: string; data: Uint8Array } | null,
  address: string,
) => VaultWindow | null;

export interface RealtimeDeps {
  readonly db: Queryable;
  readonly clock: Clock;
  readonly rpc: Rpc<GetBalanceApi & GetAccountInfoApi>;
  readonly decodeVaultWindow: VaultWindowDecoder;
  /** How long the chain may take to answer before the request fails with CHAIN_UNAVAILABLE. */
  readonly chainTimeoutMs: number;
  readonly logger?: { warn(object: object, message: string): void };
}

export async function getRealtimeReport(deps: RealtimeDeps, vaultAddress: string): Promise<RealtimeReport> {
  const [vault] = await queryRows<{ id: string; deposit_address: string }>(
    deps.db,
    sql`select id, deposit_address from vaults where address = ${vaultAddress}`,
  );
  if (vault === undefined) {
    throw vaultNotFound(vaultAddress);
  }
  const [chain, lastTransaction] = await Promise.all([
    readChain(deps, vaultAddress, vault.deposit_address),
    queryRows<{ at: Date | string | null }>(
      deps.db,
      sql`select max(timestamp) as at from transactions where vault_id = ${vault.id}`,
    ),
  ]);
  const now = deps.clock.now();
  const windowEndMs = Number((chain.window.lastReset + WINDOW_SECONDS) * 1000n);
  // Past the window the program starts a new one on the next transfer: nothing is spent in it yet.
  const open = now.getTime() < windowEndMs;
  const spentToday = open ? chain.window.spentToday : 0n;
  let transactionsToday = 0;
  if (open) {
    const windowStart = new Date(Number(chain.window.lastReset * 1000n)).toISOString();
    const [count] = await queryRows<{ count: number }>(
      deps.db,
      sql`select count(*)::int as count from transactions
          where vault_id = ${vault.id} and status = 'executed'
            and timestamp >= ${windowStart}::timestamptz and timestamp <= ${now.toISOString()}::timestamptz`,
    );
    transactionsToday = Number(count?.count ?? 0);
  }
  const lastAt = lastTransaction[0]?.at ?? null;
  return {
    vault: vaultAddress,
    timestamp: now.toISOString(),
    balance: chain.balance.toString(),
    spentToday: spentToday.toString(),
    dailyLimit: chain.window.dailyLimit.toString(),
    utilizationPct: utilizationPct(spentToday, chain.window.dailyLimit),
    transactionsToday,
    lastTransaction: lastAt === null ? null : new Date(lastAt).toISOString(),
    lastReset:
      chain.window.lastReset > 0n ? new Date(Number(chain.window.lastReset * 1000n)).toISOString() : null,
  };
}

/** spent / limit × 100, rounded half up to 2 decimals, without floating point on the amounts. */
export function utilizationPct(spent: bigint, limit: bigint): number {
  if (limit <= 0n) return 0;
  const hundredths = (spent * 20_000n + limit) / (2n * limit);
  return Number(hundredths) / 100;
}

async function readChain(
  deps: RealtimeDeps,
  vaultAddress: string,
  depositAddress: string,
): Promise<{ balance: bigint; window: VaultWindow }> {
  const abortSignal = AbortSignal.timeout(deps.chainTimeoutMs);
  let balance: bigint;
  let account: { owner: string; data: Uint8Array } | null;
  try {
    const [balanceResult, accountResult] = await Promise.all([
      deps.rpc.getBalance(depositAddress as Address, { commitment: 'confirmed' }).send({ abortSignal }),
      deps.rpc
        .getAccountInfo(vaultAddress as Address, { encoding: 'base64', commitment: 'confirmed' })
        .send({ abortSignal }),
    ]);
    balance = BigInt(balanceResult.value);
    const value = accountResult.value;
    account =
      value === null
        ? null
        : { owner: value.owner, data: new Uint8Array(Buffer.from(value.data[0], 'base64')) };
  } catch (error) {
    deps.logger?.warn(
      { err: error instanceof Error ? error.message : String(error), vault: vaultAddress },
      'chain read for realtime analytics failed',
    );
    throw new AppError('CHAIN_UNAVAILABLE', 'The Solana RPC did not answer', {}, { cause: error });
  }
  let window: VaultWindow | null;
  try {
    window = deps.decodeVaultWindow(account, vaultAddress);
  } catch (error) {
    throw vaultNotFound(vaultAddress, 'not_a_vault_account', error);
  }
  if (window === null) {
    throw vaultNotFound(vaultAddress, 'account_not_found');
  }
  return { balance, window };
}
