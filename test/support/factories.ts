// Rows written the way ingestion writes them: vaults with their PDAs, transactions with the vault's
// counters maintained in the same database transaction, overrides with their Blink.
import { randomBytes } from 'node:crypto';
import { type Address, getBase58Decoder } from '@solana/kit';
import { eq } from 'drizzle-orm';
import { findVaultAddress, findVaultAuthorityAddress } from '../../src/chain/pdas.js';
import { DEFAULT_PROGRAM_ID } from '../../src/config.js';
import { buildBlinkUrl } from '../../src/domain/overrides/override-resource.js';
import { recordTransactionStats } from '../../src/domain/vaults/vault-stats.js';
import type { Database } from '../../src/storage/database.js';
import {
  blinks,
  type NewTransactionRow,
  type NewVaultRow,
  type OverrideRow,
  overrides,
  type TransactionRow,
  transactions,
  type VaultRow,
  vaults,
} from '../../src/storage/schema/index.js';

const base58 = getBase58Decoder();
let sequence = 0;

export const randomAddress = (): string => base58.decode(randomBytes(32));
export const randomSignature = (): string => base58.decode(randomBytes(64));

/** A vault whose address and deposit address are the real PDAs of its authority and nonce. */
export async function createVault(
  db: Database,
  input: Partial<NewVaultRow> & { programId?: string } = {},
): Promise<VaultRow> {
  const { programId = DEFAULT_PROGRAM_ID, ...fields } = input;
  const authority = fields.authority ?? randomAddress();
  const vaultNonce = fields.vaultNonce ?? BigInt(++sequence);
  const address =
    fields.address ?? (await findVaultAddress(programId as Address, authority as Address, vaultNonce))[0];
  const [depositAddress] = await findVaultAuthorityAddress(programId as Address, address as Address);
  const [row] = await db
    .insert(vaults)
    .values({
      authority,
      address,
      depositAddress,
      agentSigner: randomAddress(),
      dailyLimit: 10_000_000_000n,
      name: `Vault ${sequence}`,
      vaultNonce,
      overrideNonce: 0n,
      lastReset: new Date('2026-11-20T00:00:00.000Z'),
      ...fields,
    })
    .returning();
  return row!;
}

export interface TransactionInput extends Partial<Omit<NewTransactionRow, 'vaultId'>> {
  vault: Pick<VaultRow, 'id'>;
  /** The override a blocked attempt asked for, or the override a pending/executed transfer carries out. */
  override?: Pick<OverrideRow, 'id'>;
}

/** A transaction plus its vault's counters, in one database transaction (as ingestion does). */
export async function createTransaction(db: Database, input: TransactionInput): Promise<TransactionRow> {
  const { vault, override, ...fields } = input;
  const status = fields.status ?? 'executed';
  const amount = fields.amount ?? 1_000_000n;
  const values: NewTransactionRow = {
    vaultId: vault.id,
    signature: status === 'pending' ? null : randomSignature(),
    eventIndex: status === 'pending' ? null : 0,
    destination: randomAddress(),
    amount,
    feeCollected: status === 'executed' ? amount / 1000n : null,
    blockReason: status === 'blocked' ? 'exceeded_daily_limit' : null,
    timestamp: new Date(),
    slot: 1000 + sequence++,
    ...fields,
    status,
    overrideId: override?.id ?? fields.overrideId ?? null,
  };
  return db.transaction(async (tx) => {
    const [row] = await tx.insert(transactions).values(values).returning();
    await recordTransactionStats(tx, [{ vaultId: vault.id, previousStatus: null, status, amount }]);
    return row!;
  });
}

/** An approved override's pending transfer executing (ExecuteApprovedOverride): pending → executed. */
export async function executePendingTransaction(
  db: Database,
  pending: TransactionRow,
  fields: { signature?: string; feeCollected?: bigint; timestamp?: Date } = {},
): Promise<TransactionRow> {
  return db.transaction(async (tx) => {
    const [row] = await tx
      .update(transactions)
      .set({
        status: 'executed',
        signature: fields.signature ?? randomSignature(),
        eventIndex: 0,
        feeCollected: fields.feeCollected ?? pending.amount / 1000n,
        timestamp: fields.timestamp ?? new Date(),
        updatedAt: new Date(),
      })
      .where(eq(transactions.id, pending.id))
      .returning();
    await recordTransactionStats(tx, [
      { vaultId: pending.vaultId, previousStatus: 'pending', status: 'executed', amount: pending.amount },
    ]);
    return row!;
  });
}

export interface OverrideInput extends Partial<Omit<typeof overrides.$inferInsert, 'vaultId'>> {
  vault: Pick<VaultRow, 'id' | 'address'>;
  /** Also write its Blink row (default true), as ingestion does for a blocked attempt. */
  withBlink?: boolean;
  publicBaseUrl?: string;
}

export async function createOverride(db: Database, input: OverrideInput): Promise<OverrideRow> {
  const { vault, withBlink = true, publicBaseUrl = 'http://localhost:3000', ...fields } = input;
  const nonce = fields.nonce ?? BigInt(++sequence);
  const createdAt = fields.createdAt ?? new Date();
  const [row] = await db
    .insert(overrides)
    .values({
      vaultId: vault.id,
      nonce,
      destination: randomAddress(),
      amount: 2_000_000_000n,
      reason: 'exceeded_daily_limit',
      expiresAt: new Date(createdAt.getTime() + 3_600_000),
      createdAt,
      ...fields,
    })
    .returning();
  if (withBlink) {
    await db.insert(blinks).values({
      overrideId: row!.id,
      url: buildBlinkUrl(publicBaseUrl, { vault: vault.address, nonce, transfer: row!.addressSignature }),
    });
  }
  return row!;
}
