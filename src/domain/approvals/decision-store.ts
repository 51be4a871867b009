// Queries of the decision flows: the override behind an address, Blink use counters, nonces, rejection.
import { and, eq, sql } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { AppError } from '../../errors.js';
import type { Database, Queryable } from '../../storage/database.js';
import { actionNonces, blinks, type OverrideRow, overrides } from '../../storage/schema/overrides.js';
import { vaults } from '../../storage/schema/vaults.js';
import { markDailyMetricsDirty } from '../analytics/metrics-dirty.js';
import { type AuditStamp, recordDone } from '../audit/audit-service.js';
import {
  type OverrideResource,
  overrideAddressFilter,
  toOverrideResource,
} from '../overrides/override-resource.js';
import { enqueueWebhookEvent } from '../webhooks/outbox.js';

export interface ActionVault {
  id: string;
  address: string;
  authority: string;
  name: string;
  depositAddress: string;
}

export interface ActionOverride {
  vault: ActionVault;
  override: OverrideRow;
  /** The stored reason, else the block reason of the attempt that asked for the override. */
  reason: string | null;
}

/** The vault (null when unknown) and the request at this address (null when unknown). */
export async function findActionOverride(
  db: Queryable,
  vaultAddress: string,
  nonce: bigint,
  transfer: string | undefined,
): Promise<{ vault: ActionVault | null; override: OverrideRow | null; reason: string | null }> {
  const [row] = await db
    .select({
      vault: {
        id: vaults.id,
        address: vaults.address,
        authority: vaults.authority,
        name: vaults.name,
        depositAddress: vaults.depositAddress,
      },
      override: overrides,
      reason: sql<string | null>`coalesce(${overrides.reason}, (
        select t.block_reason from transactions t
        where t.override_id = ${overrides.id} and t.status = 'blocked'
        order by t.timestamp limit 1))`,
    })
    .from(vaults)
    .leftJoin(overrides, and(eq(overrides.vaultId, vaults.id), overrideAddressFilter(nonce, transfer)))
    .where(eq(vaults.address, vaultAddress))
    .limit(1);
  if (row === undefined) return { vault: null, override: null, reason: null };
  return { vault: row.vault, override: row.override, reason: row.reason };
}

export type BlinkUse = 'view' | 'approve' | 'reject';

/** Counts one use of an override's Blink, creating the Blink record when ingestion has not. */
export async function recordBlinkUse(
  db: Queryable,
  input: { overrideId: string; url: string; use: BlinkUse; at: Date },
): Promise<void> {
  const one = (use: BlinkUse) => (input.use === use ? 1 : 0);
  const bump = (column: AnyPgColumn, use: BlinkUse) => sql`${column} + ${one(use)}`;
  await db
    .insert(blinks)
    .values({
      overrideId: input.overrideId,
      url: input.url,
      viewCount: one('view'),
      approveCount: one('approve'),
      rejectCount: one('reject'),
      lastUsedAt: input.at,
    })
    .onConflictDoUpdate({
      target: blinks.overrideId,
      set: {
        viewCount: bump(blinks.viewCount, 'view'),
        approveCount: bump(blinks.approveCount, 'approve'),
        rejectCount: bump(blinks.rejectCount, 'reject'),
        lastUsedAt: input.at,
      },
    });
}

/** True when a rejection already spent this sign-message nonce. */
export async function isNonceSpent(db: Queryable, nonce: string): Promise<boolean> {
  const [row] = await db
    .select({ nonce: actionNonces.nonce })
    .from(actionNonces)
    .where(eq(actionNonces.nonce, nonce))
    .limit(1);
  return row !== undefined;
}

/** A sign-message nonce the wallet signed: recorded when spent, kept until it expires. */
export interface SpentNonce {
  nonce: string;
  account: string;
  issuedAt: Date;
  expiresAt: Date;
}

/**
 * Rejects a pending override in one transaction: spends the sign-message nonce (when given), sets
 * the status, counts the Blink use, enqueues `override.rejected` and marks the day's metrics dirty.
 */
export async function rejectOverride(
  db: Database,
  input: {
    target: ActionOverride;
    spend: SpentNonce | null;
    at: Date;
    publicBaseUrl: string;
    /** The request's audit stamp and the entry's target: the entry commits with the rejection. */
    audit?: { stamp: AuditStamp | null; target: string } | undefined;
  },
): Promise<OverrideResource> {
  const { target, at, spend } = input;
  const { vault } = target;
  return db.transaction(async (tx) => {
    if (spend !== null) {
      const spent = await tx
        .insert(actionNonces)
        .values({
          nonce: spend.nonce,
          overrideId: target.override.id,
          account: spend.account,
          expiresAt: spend.expiresAt,
          createdAt: spend.issuedAt,
          usedAt: at,
        })
        .onConflictDoNothing()
        .returning({ nonce: actionNonces.nonce });
      if (spent.length === 0) {
        throw new AppError('UNAUTHORIZED', 'This signature request was already used', { reason: 'replayed' });
      }
    }
    const [row] = await tx
      .update(overrides)
      .set({ status: 'rejected', rejectedAt: at, updatedAt: at })
      .where(and(eq(overrides.id, target.override.id), eq(overrides.status, 'pending')))
      .returning();
    if (row === undefined) {
      const [current] = await tx
        .select({ status: overrides.status })
        .from(overrides)
        .where(eq(overrides.id, target.override.id));
      throw new AppError('OVERRIDE_NOT_PENDING', 'Override is no longer pending', {
        status: current?.status ?? null,
      });
    }
    const resource = toOverrideResource(
      { ...row, vaultAddress: vault.address },
      { publicBaseUrl: input.publicBaseUrl, now: at },
    );
    await recordBlinkUse(tx, { overrideId: row.id, url: resource.blinkUrl, use: 'reject', at });
    await enqueueWebhookEvent(tx, {
      event: 'override.rejected',
      vaultId: vault.id,
      authority: vault.authority,
      timestamp: at.toISOString(),
      data: { ...resource },
      dedupeKey: `override:${row.id}:rejected`,
    });
    await markDailyMetricsDirty(tx, vault.id, at);
    if (input.audit !== undefined) {
      await recordDone(tx, input.audit.stamp, { target: input.audit.target, vault: vault.address }, at);
    }
    // The rollup may count overrides by the day they were requested as well.
    if (row.createdAt.toISOString().slice(0, 10) !== at.toISOString().slice(0, 10)) {
      await markDailyMetricsDirty(tx, vault.id, row.createdAt);
    }
    return resource;
  });
}
