// Account reads ingestion needs before it opens a database transaction: VaultConfig (owner and
// discriminator checked) and PendingOverride accounts, through getAccountInfo.
import type { Address } from '@solana/kit';
import type { Logger } from 'pino';
import {
  type ChainStateReader,
  type OverrideAccountState,
  overrideKey,
  type VaultAccountRead,
} from '../domain/ingestion/types.js';
import { withRetry } from '../lib/backoff.js';
import {
  AccountDecodeError,
  decodePendingOverride,
  parseVaultConfigAccount,
  warnUndecodable,
} from './accounts.js';
import { findPendingOverrideAddress, findVaultAuthorityAddress } from './pdas.js';
import type { SolanaRpc } from './rpc.js';

const READ_CONCURRENCY = 8;

type RawAccount = { owner: Address; data: Uint8Array } | null;

export function createChainReader(deps: {
  rpc: SolanaRpc;
  programId: Address;
  logger: Logger;
  signal?: AbortSignal;
  /** `confirmed` (ingestion) unless asked otherwise: the finality reconciler reads at `finalized`. */
  commitment?: 'confirmed' | 'finalized';
}): ChainStateReader {
  const { rpc, programId, logger, signal } = deps;
  const commitment = deps.commitment ?? 'confirmed';

  async function readAccount(
    address: Address,
    minSlot: number,
  ): Promise<{ slot: number; account: RawAccount }> {
    const response = await withRetry(
      () =>
        rpc
          .getAccountInfo(address, {
            commitment,
            encoding: 'base64',
            ...(minSlot > 0 ? { minContextSlot: BigInt(minSlot) } : {}),
          })
          .send(signal === undefined ? undefined : { abortSignal: signal }),
      { attempts: 5, signal },
    );
    const value = response.value;
    const account =
      value === null
        ? null
        : { owner: value.owner, data: new Uint8Array(Buffer.from(value.data[0], 'base64')) };
    return { slot: Number(response.context.slot), account };
  }

  return {
    async readVaults(addresses, minSlot) {
      const reads = await mapLimited(addresses, READ_CONCURRENCY, async (address) => {
        const [{ slot, account }, [depositAddress]] = await Promise.all([
          readAccount(address as Address, minSlot),
          findVaultAuthorityAddress(programId, address as Address),
        ]);
        let state: VaultAccountRead['state'] = null;
        try {
          state = parseVaultConfigAccount(account, programId);
        } catch (error) {
          if (!(error instanceof AccountDecodeError)) throw error;
          warnUndecodable(logger, address, account?.data.length ?? 0, error);
        }
        return [address, { slot, state, depositAddress }] as const;
      });
      return new Map(reads);
    },

    async readOverrides(keys) {
      const reads = await mapLimited(keys, READ_CONCURRENCY, async ({ vault, nonce }) => {
        const [pda] = await findPendingOverrideAddress(programId, vault as Address, nonce);
        const { account } = await readAccount(pda, 0);
        let state: OverrideAccountState | null = null;
        if (account !== null && account.owner === programId) {
          try {
            const decoded = decodePendingOverride(account.data);
            if (decoded.vault === vault && decoded.nonce === nonce) {
              state = {
                amount: decoded.requestedAmount,
                destination: decoded.destination,
                expiresAt: decoded.expiresAt,
                executed: decoded.executed,
              };
            }
          } catch (error) {
            if (!(error instanceof AccountDecodeError)) throw error;
          }
        }
        return [overrideKey(vault, nonce), state] as const;
      });
      return new Map(reads.filter((r): r is readonly [string, OverrideAccountState] => r[1] !== null));
    },
  };
}

async function mapLimited<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}
