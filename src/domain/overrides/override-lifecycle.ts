// The life of an override, stated once for every room that moves or reads one. Ingestion creates it
// `pending` with an hour to live and moves it to `approved` and `executed` from the program's events;
// the Blink and the approval page reject it (while pending, even past its expiry) or build its approval
// (pending and not expired); reads report a pending one past its expiry as `expired`.
import { AppError } from '../../errors.js';
import type { OverrideStatus } from '../../storage/schema/overrides.js';

/** Override lifetime the program sets on create_override (expires_at = now + 1 h). */
export const OVERRIDE_TTL_SECONDS = 3600n;

/** When an override requested at `requestedAt` expires. */
export function overrideExpiresAt(requestedAt: Date): Date {
  return new Date(requestedAt.getTime() + Number(OVERRIDE_TTL_SECONDS) * 1000);
}

/** True once `now` has reached the expiry. */
export function isPastExpiry(expiresAt: Date | string, now: Date): boolean {
  return new Date(expiresAt).getTime() <= now.getTime();
}

/** A pending override stays `pending` once expiresAt is reached, but is reported expired and cannot be approved. */
export function isOverrideExpired(status: OverrideStatus, expiresAt: Date | string, now: Date): boolean {
  return status === 'pending' && isPastExpiry(expiresAt, now);
}

/** Only a pending override can be decided; an expired one can still be rejected, never approved. */
export function assertOverrideDecidable(
  override: { status: OverrideStatus; expiresAt: Date },
  now: Date,
  options: { approving: boolean },
): void {
  const { status, expiresAt } = override;
  if (status !== 'pending') {
    throw new AppError('OVERRIDE_NOT_PENDING', `Override is ${status}, not pending`, { status });
  }
  if (options.approving && isPastExpiry(expiresAt, now)) {
    throw new AppError('OVERRIDE_EXPIRED', 'Override has expired and can no longer be approved', {
      expiresAt: expiresAt.toISOString(),
    });
  }
}
