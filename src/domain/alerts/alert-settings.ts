// An owner's alert settings for a vault (off-chain): defaults, validation, read and write.
import { eq } from 'drizzle-orm';
import { type ValidationIssue, validationError } from '../../errors.js';
import type { Clock } from '../../lib/clock.js';
import type { Queryable } from '../../storage/database.js';
import { type VaultAlertSettingsRow, vaultAlertSettings } from '../../storage/schema/index.js';
import { type AuditStamp, recordDone } from '../audit/audit-service.js';
import { assertVaultOwner } from '../auth/ownership.js';
import { getVaultRow } from '../vaults/vault-reads.js';

export interface VelocitySettings {
  windowSeconds: number;
  maxTransfers: number;
}

export interface AlertSettings {
  budgetThresholds: number[];
  velocity: VelocitySettings | null;
  expiryWarningMinutes: number;
}

export type AlertSettingsInput = Partial<AlertSettings>;

export const DEFAULT_ALERT_SETTINGS: Readonly<AlertSettings> = Object.freeze({
  budgetThresholds: [80, 100],
  velocity: null,
  expiryWarningMinutes: 15,
});

export const ALERT_LIMITS = {
  thresholds: { min: 1, max: 100, count: 5 },
  windowSeconds: { min: 60, max: 86_400 },
  maxTransfers: { min: 1, max: 10_000 },
  expiryWarningMinutes: { min: 1, max: 59 },
} as const;

/** The settings a row holds (no row: the defaults). */
export function toAlertSettings(row: VaultAlertSettingsRow | undefined): AlertSettings {
  if (row === undefined) return { ...DEFAULT_ALERT_SETTINGS, budgetThresholds: [80, 100] };
  const { velocityWindowSeconds: windowSeconds, velocityMaxTransfers: maxTransfers } = row;
  return {
    budgetThresholds: [...row.budgetThresholds],
    velocity: windowSeconds === null || maxTransfers === null ? null : { windowSeconds, maxTransfers },
    expiryWarningMinutes: row.expiryWarningMinutes,
  };
}

/** What the schema cannot say: distinct thresholds (the ranges are the schema's). */
function findIssues(input: AlertSettingsInput): ValidationIssue[] {
  const thresholds = input.budgetThresholds ?? [];
  if (new Set(thresholds).size !== thresholds.length) {
    return [{ path: 'budgetThresholds', message: 'must not repeat a threshold' }];
  }
  return [];
}

export interface AlertSettingsServiceDeps {
  readonly db: Queryable;
  readonly clock: Clock;
}

export function createAlertSettingsService(deps: AlertSettingsServiceDeps) {
  const read = async (vaultId: string) => {
    const [row] = await deps.db
      .select()
      .from(vaultAlertSettings)
      .where(eq(vaultAlertSettings.vaultId, vaultId));
    return toAlertSettings(row);
  };
  return {
    /** The vault's settings, for its owner. */
    async getAlertSettings(wallet: string, vault: string): Promise<AlertSettings> {
      const row = await getVaultRow(deps.db, vault);
      assertVaultOwner(wallet, row.authority);
      return read(row.id);
    },
    /** Changes the given fields, keeps the others; answers the whole settings object. */
    async updateAlertSettings(
      wallet: string,
      vault: string,
      input: AlertSettingsInput,
      audit?: AuditStamp | null,
    ): Promise<AlertSettings> {
      const row = await getVaultRow(deps.db, vault);
      assertVaultOwner(wallet, row.authority);
      const issues = findIssues(input);
      if (issues.length > 0) throw validationError(issues);
      const next = { ...(await read(row.id)), ...input };
      const values = {
        vaultId: row.id,
        budgetThresholds: [...next.budgetThresholds].sort((a, b) => a - b),
        velocityWindowSeconds: next.velocity?.windowSeconds ?? null,
        velocityMaxTransfers: next.velocity?.maxTransfers ?? null,
        expiryWarningMinutes: next.expiryWarningMinutes,
        updatedAt: deps.clock.now(),
      };
      const saved = await deps.db.transaction(async (tx) => {
        const [written] = await tx
          .insert(vaultAlertSettings)
          .values(values)
          .onConflictDoUpdate({ target: vaultAlertSettings.vaultId, set: values })
          .returning();
        await recordDone(tx, audit, { target: `vault:${row.address}`, vault: row.address }, values.updatedAt);
        return written;
      });
      return toAlertSettings(saved);
    },
  };
}

export type AlertSettingsService = ReturnType<typeof createAlertSettingsService>;
