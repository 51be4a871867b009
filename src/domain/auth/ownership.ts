// Ownership: writes to a vault (and its webhooks, overrides) are for its authority alone.
import { AppError } from '../../errors.js';

/** Throws 403 FORBIDDEN unless the authenticated wallet is the vault's authority. */
export function assertVaultOwner(wallet: string | null, authority: string): void {
  if (wallet === null || wallet !== authority) {
    throw new AppError('FORBIDDEN', 'Only the vault authority may do this', { reason: 'not_owner' });
  }
}
