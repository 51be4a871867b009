// The "funded vault with a blocked transfer" world: an override as the chain and ingestion leave
// it, a funded vault on the fake validator whose transfer the program blocked, and its vault and pending
// override rows (and, when asked, the blocked attempt) in the database.
import assert from 'node:assert/strict';
import type { Address } from '@solana/kit';
import { createTestWallet, type TestWallet } from '../../dev/support/wallet.js';
import type { FakeValidator } from '../../dev/validator/index.js';
import type { Database } from '../../src/storage/database.js';
import type { OverrideRow, VaultRow } from '../../src/storage/schema/index.js';
import { createOverride, createTransaction, createVault, randomAddress } from './factories.js';

export const SOL = 1_000_000_000n;

/** The PUBLIC_BASE_URL of the Blink tests: the host a wallet sees in Action URLs and sign-in messages. */
export const BLINKS_BASE_URL = 'https://blinks.vaultkeeper.test';

export interface SeededOverride {
  owner: TestWallet;
  vault: Address;
  depositAddress: Address;
  destination: Address;
  nonce: bigint;
  overrideId: string;
  /** The override's Blink path, `/api/actions/{vault}/{nonce}`. */
  url: string;
  /** The rows as ingestion stored them. */
  vaultRow: VaultRow;
  override: OverrideRow;
}

export interface SeededOverrideOptions {
  amount?: bigint;
  deposit?: bigint;
  /** What the owner's wallet holds (default 1 SOL; 0 leaves it unfunded). */
  ownerLamports?: bigint;
  /** The vault's name (default 'Ops'). */
  name?: string;
  /** The override row's status (default pending). */
  status?: 'pending' | 'approved' | 'rejected' | 'executed';
  /** The override row's block reason (default exceeded_daily_limit; null: none stored). */
  reason?: string | null;
  /** Time left before the override expires (default 50 minutes; negative: expired). */
  expiresInMs?: number;
  /** Also stores the blocked attempt in transactions, linked to the override, as ingestion does. */
  withBlockedTransaction?: boolean;
}

export interface ApprovalWorld {
  fake: FakeValidator;
  db: Database;
  nowMs: number;
  publicBaseUrl: string;
}

/** A blocked transfer of `amount` (2 SOL) from a vault holding `deposit` (10 SOL), pending since a minute before `nowMs`. */
export async function seedOverride(
  world: ApprovalWorld,
  opts: SeededOverrideOptions = {},
): Promise<SeededOverride> {
  const { fake, db, nowMs } = world;
  const amount = opts.amount ?? 2n * SOL;
  const name = opts.name ?? 'Ops';
  const owner = createTestWallet();
  const created = await fake.createVault({ authority: owner.address as Address, dailyLimit: SOL, name });
  await fake.deposit(created.vault, opts.deposit ?? 10n * SOL);
  if (opts.ownerLamports !== 0n) await fake.airdrop(owner.address as Address, opts.ownerLamports ?? SOL);
  const destination = randomAddress() as Address;
  const blocked = await fake.block(created.vault, { destination, amount, reason: 'exceeded_daily_limit' });
  const nonce = blocked.overrideNonce!;
  const vaultRow = await createVault(db, { authority: owner.address, vaultNonce: created.nonce, name });
  assert.equal(vaultRow.address, created.vault);
  const override = await createOverride(db, {
    vault: vaultRow,
    nonce,
    destination,
    amount,
    reason: opts.reason === undefined ? 'exceeded_daily_limit' : opts.reason,
    status: opts.status ?? 'pending',
    createdAt: new Date(nowMs - 60_000),
    expiresAt: new Date(nowMs + (opts.expiresInMs ?? 50 * 60_000)),
    publicBaseUrl: world.publicBaseUrl,
  });
  if (opts.withBlockedTransaction)
    await createTransaction(db, { vault: vaultRow, override, status: 'blocked', destination, amount });
  return {
    owner,
    vault: created.vault,
    depositAddress: created.depositAddress,
    destination,
    nonce,
    overrideId: override.id,
    url: `/api/actions/${created.vault}/${nonce}`,
    vaultRow,
    override,
  };
}
