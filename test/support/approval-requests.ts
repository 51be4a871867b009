// An approval request as the chain and ingestion leave it: a funded vault on the fake validator whose
// transfer the program blocked, and its vault and pending override rows in the database.
import type { Address } from '@solana/kit';
import { createTestWallet, type TestWallet } from '../../dev/support/wallet.js';
import type { FakeValidator } from '../../dev/validator/index.js';
import type { Database } from '../../src/storage/database.js';
import { createOverride, createVault, randomAddress } from './factories.js';

const SOL = 1_000_000_000n;

export interface ApprovalRequest {
  owner: TestWallet;
  vault: Address;
  depositAddress: Address;
  destination: Address;
  nonce: bigint;
  overrideId: string;
  /** The request's Blink path, `/api/actions/{vault}/{nonce}`. */
  url: string;
}

export interface ApprovalRequestOptions {
  amount?: bigint;
  deposit?: bigint;
  /** What the owner's wallet holds (default 1 SOL; 0 leaves it unfunded). */
  ownerLamports?: bigint;
}

/** A blocked transfer of `amount` (2 SOL) from a vault holding `deposit` (10 SOL), pending since a minute before `nowMs`. */
export async function seedApprovalRequest(
  deps: { fake: FakeValidator; db: Database; nowMs: number; publicBaseUrl: string },
  opts: ApprovalRequestOptions = {},
): Promise<ApprovalRequest> {
  const { fake, db, nowMs } = deps;
  const amount = opts.amount ?? 2n * SOL;
  const owner = createTestWallet();
  const created = await fake.createVault({
    authority: owner.address as Address,
    dailyLimit: SOL,
    name: 'Ops',
  });
  await fake.deposit(created.vault, opts.deposit ?? 10n * SOL);
  if (opts.ownerLamports !== 0n) await fake.airdrop(owner.address as Address, opts.ownerLamports ?? SOL);
  const destination = randomAddress() as Address;
  const blocked = await fake.block(created.vault, { destination, amount, reason: 'exceeded_daily_limit' });
  const nonce = blocked.overrideNonce!;
  const vault = await createVault(db, { authority: owner.address, vaultNonce: created.nonce, name: 'Ops' });
  const override = await createOverride(db, {
    vault,
    nonce,
    destination,
    amount,
    reason: 'exceeded_daily_limit',
    status: 'pending',
    createdAt: new Date(nowMs - 60_000),
    expiresAt: new Date(nowMs + 50 * 60_000),
    publicBaseUrl: deps.publicBaseUrl,
  });
  return {
    owner,
    vault: created.vault,
    depositAddress: created.depositAddress,
    destination,
    nonce,
    overrideId: override.id,
    url: `/api/actions/${created.vault}/${nonce}`,
  };
}
