// The realtime analytics' port (domain/analytics/realtime.ts): a vault's daily spending window, decoded
// from its VaultConfig account.
import type { Address } from '@solana/kit';
import type { VaultWindowDecoder } from '../domain/analytics/realtime.js';
import { parseVaultConfigAccount } from './accounts.js';

export function createVaultWindowDecoder(programId: Address): VaultWindowDecoder {
  return (account) => parseVaultConfigAccount(account, programId);
}
