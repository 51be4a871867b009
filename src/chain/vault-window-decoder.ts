// The realtime analytics' port (domain/analytics/realtime.ts): a vault's daily spending window, decoded
// from its VaultConfig account; one it cannot read (another layout) is named once in the log.
import type { Address } from '@solana/kit';
import type { Logger } from 'pino';
import type { VaultWindowDecoder } from '../domain/analytics/realtime.js';
import { AccountDecodeError, parseVaultConfigAccount, warnUndecodable } from './accounts.js';

export function createVaultWindowDecoder(
  programId: Address,
  logger?: Pick<Logger, 'warn'>,
): VaultWindowDecoder {
  return (account, address) => {
    try {
      return parseVaultConfigAccount(account, programId);
    } catch (error) {
      if (logger && error instanceof AccountDecodeError)
        warnUndecodable(logger, address, account?.data.length ?? 0, error);
      throw error;
    }
  };
}
