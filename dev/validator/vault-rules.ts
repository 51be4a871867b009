import type { Address } from '@solana/kit';
import type { BlockReason, KnownProgramEvent, VaultTier } from './program-events.js';
import { PROGRAM_ERRORS } from './program-idl.js';
import { type DecodedInstruction, getInstructionAccounts } from './program-instructions.js';
import type { LedgerState, TxInstruction, VaultEntry } from './state.js';

/**
 * The vault program's shared checks and effects (constraints, policy, payouts, errors), modelled from
 * its published interface: the IDL (errors, events, account fields) and the program's description.
 */

/** A spending window lasts a day from its `last_reset`, by the Clock's unix_timestamp. */
export const DAY_SECONDS = 86_400n;
const BASIS_POINTS = 10_000n;

/** Scenario shortcuts: force an outcome the policy would not produce on its own. */
export type VaultForce = {
  tier?: VaultTier;
  feeBasisPoints?: number;
  skipPolicy?: boolean;
  block?: { reason: BlockReason; withOverride: boolean };
};

export type InstructionContext = {
  state: LedgerState;
  programId: Address;
  treasury: Address;
  blockTime: bigint;
  force: VaultForce;
  log(line: string): void;
  emit(event: KnownProgramEvent): void;
  /** A system-program CPI (transfer or create_account) moving lamports. */
  transfer(from: Address, to: Address, lamports: bigint): void;
};

/** How an instruction failed: a custom program error code, or a runtime InstructionError name. */
export class ProgramFailure extends Error {
  constructor(
    readonly error: number | string,
    message: string,
  ) {
    super(message);
  }
}

const ANCHOR_ERRORS = {
  InstructionFallbackNotFound: { code: 101, message: 'Fallback functions are not supported' },
  InstructionDidNotDeserialize: {
    code: 102,
    message: 'The program could not deserialize the given instruction',
  },
  ConstraintHasOne: { code: 2001, message: 'A has one constraint was violated' },
  ConstraintSeeds: { code: 2006, message: 'A seeds constraint was violated' },
  AccountNotInitialized: {
    code: 3012,
    message: 'The program expected this account to be already initialized',
  },
  AccountAlreadyInitialized: { code: 0, message: 'account already in use' },
} as const;

/** The program's own errors the model raises (each is one of the IDL's `errors`). */
type ProgramErrorName =
  | 'NotWhitelisted'
  | 'DailyLimitExceeded'
  | 'VaultPaused'
  | 'UnauthorizedSigner'
  | 'OverrideExpired'
  | 'OverrideAlreadyExecuted'
  | 'InvalidDailyLimit'
  | 'InsufficientFunds'
  | 'InvalidAmount'
  | 'InvalidPolicy'
  | 'WhitelistFull'
  | 'WhitelistNotFound'
  | 'InvalidAgentSigner';

export function fail(name: ProgramErrorName | keyof typeof ANCHOR_ERRORS, ctx: InstructionContext): never {
  const known =
    name in ANCHOR_ERRORS ? ANCHOR_ERRORS[name as keyof typeof ANCHOR_ERRORS] : PROGRAM_ERRORS[name];
  if (known === undefined) throw new TypeError(`the IDL declares no error ${name}`);
  const { code, message } = known;
  ctx.log(
    `Program log: AnchorError occurred. Error Code: ${name}. Error Number: ${code}. Error Message: ${message}.`,
  );
  throw new ProgramFailure(code, message);
}

export type Accounts = Record<string, { address: Address; isSigner: boolean }>;

export function namedAccounts(ix: TxInstruction, decoded: DecodedInstruction): Accounts | null {
  const names = getInstructionAccounts(decoded.name);
  if (ix.accounts.length < names.length) return null;
  const out: Accounts = {};
  names.forEach(({ name }, i) => {
    const meta = ix.accounts[i];
    if (meta !== undefined) out[name] = { address: meta.address, isSigner: meta.isSigner };
  });
  return out;
}

export function account(accounts: Accounts, name: string): { address: Address; isSigner: boolean } {
  const meta = accounts[name];
  if (meta === undefined) throw new ProgramFailure('NotEnoughAccountKeys', `missing ${name}`);
  return meta;
}

export function requireSigner(accounts: Accounts, name: string): Address {
  const meta = account(accounts, name);
  if (!meta.isSigner) throw new ProgramFailure('MissingRequiredSignature', `${name} must sign`);
  return meta.address;
}

/** Loads the vault and checks the owner constraints shared by every owner instruction. */
export function loadOwnedVault(
  ctx: InstructionContext,
  accounts: Accounts,
  vaultNonce: bigint,
  signer = 'authority',
): VaultEntry {
  const entry = ctx.state.getVault(account(accounts, 'vault').address);
  if (entry === undefined) fail('AccountNotInitialized', ctx);
  const signerAddress = requireSigner(accounts, signer);
  if (signer === 'authority' && signerAddress !== entry.config.authority) fail('ConstraintHasOne', ctx);
  if (signer === 'agent_signer' && signerAddress !== entry.config.agentSigner)
    fail('InvalidAgentSigner', ctx);
  if (vaultNonce !== entry.config.vaultNonce) fail('ConstraintSeeds', ctx);
  return entry;
}

/** The program opens a new window at the transfer's block time once the last one has lapsed. */
export function resetDayIfDue(entry: VaultEntry, now: bigint): void {
  if (now - entry.config.lastReset >= DAY_SECONDS) {
    entry.config.spentToday = 0n;
    entry.config.lastReset = now;
  }
}

export function checkTransferAccounts(
  ctx: InstructionContext,
  accounts: Accounts,
  entry: VaultEntry,
): Address {
  if (account(accounts, 'vault_authority').address !== entry.depositAddress) fail('ConstraintSeeds', ctx);
  if (account(accounts, 'fee_treasury').address !== ctx.treasury) fail('ConstraintSeeds', ctx);
  return account(accounts, 'destination').address;
}

/** Moves amount + fee out of the deposit address and returns the TransactionExecuted event. */
export function payOut(
  ctx: InstructionContext,
  vault: Address,
  entry: VaultEntry,
  destination: Address,
  amount: bigint,
) {
  const fee = protocolFee(amount, entry.config.feeBasisPoints);
  if (ctx.state.balance(entry.depositAddress) < amount + fee) fail('InsufficientFunds', ctx);
  ctx.transfer(entry.depositAddress, destination, amount);
  if (fee > 0n) ctx.transfer(entry.depositAddress, ctx.treasury, fee);
  entry.config.spentToday += amount;
  ctx.emit({
    name: 'TransactionExecuted',
    data: {
      vault,
      amount,
      destination,
      feeCollected: fee,
      newBalance: ctx.state.balance(entry.depositAddress),
      spentToday: entry.config.spentToday,
    },
  });
}

const BLOCK_ERRORS = {
  not_whitelisted: 'NotWhitelisted',
  exceeded_daily_limit: 'DailyLimitExceeded',
  insufficient_funds: 'InsufficientFunds',
} as const;

export function block(
  ctx: InstructionContext,
  vault: Address,
  entry: VaultEntry,
  destination: Address,
  amount: bigint,
  reason: BlockReason,
  withOverride: boolean,
): never {
  // The vault's current override nonce: the one the next create_override takes. The transaction then
  // fails, so nothing changes: every transfer blocked before the owner acts announces the same nonce.
  const overrideNonce = withOverride ? entry.config.overrideNonce : null;
  ctx.emit({ name: 'TransactionBlocked', data: { vault, reason, amount, destination, overrideNonce } });
  fail(BLOCK_ERRORS[reason], ctx);
}

/** The protocol fee taken on top of the amount: floor(amount × fee_basis_points / 10 000). */
export function protocolFee(amount: bigint, feeBasisPoints: number): bigint {
  return (amount * BigInt(feeBasisPoints)) / BASIS_POINTS;
}

/**
 * The policy's verdict on a transfer in the current window, in the program's order: a whitelist with
 * entries must hold the destination, then the day's spending plus the amount must stay within the daily
 * limit, then the vault must hold the amount plus the fee. The first two announce an override the owner
 * can approve (the vault's next override nonce); missing funds announce none.
 */
export function transferPolicy(
  ctx: InstructionContext,
  entry: VaultEntry,
  destination: Address,
  amount: bigint,
): { reason: BlockReason; withOverride: boolean } | null {
  const { config } = entry;
  if (config.whitelist.length > 0 && !config.whitelist.includes(destination))
    return { reason: 'not_whitelisted', withOverride: true };
  if (config.spentToday + amount > config.dailyLimit)
    return { reason: 'exceeded_daily_limit', withOverride: true };
  const fee = protocolFee(amount, config.feeBasisPoints);
  if (ctx.state.balance(entry.depositAddress) < amount + fee)
    return { reason: 'insufficient_funds', withOverride: false };
  return null;
}

export function emitPolicy(ctx: InstructionContext, vault: Address, entry: VaultEntry): void {
  const { dailyLimit, whitelistCount } = entry.config;
  ctx.emit({ name: 'PolicyUpdated', data: { vault, dailyLimit, whitelistSize: whitelistCount } });
}
