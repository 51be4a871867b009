import { MAX_NAME_BYTES, MAX_WHITELIST } from './program-accounts.js';
import { pascalCase } from './program-idl.js';
import {
  decodeInstruction,
  findPendingOverrideAddress,
  findVaultAddress,
  findVaultAuthorityAddress,
} from './program-instructions.js';
import { OVERRIDE_RENT, type TxInstruction, VAULT_RENT } from './state.js';
import {
  account,
  block,
  checkTransferAccounts,
  emitPolicy,
  fail,
  type InstructionContext,
  loadOwnedVault,
  namedAccounts,
  ProgramFailure,
  payOut,
  requireSigner,
  resetDayIfDue,
  transferPolicy,
} from './vault-rules.js';

export { type InstructionContext, ProgramFailure, type VaultForce } from './vault-rules.js';

/** A model of the vault program: the same checks, state changes, events and errors, minus the BPF. */

/** How long an override stays approvable: OverrideCreated.expires_at is one hour after its creation. */
const OVERRIDE_TTL_SECONDS = 3_600n;

/** Runs one vault program instruction against the ledger; throws ProgramFailure when it fails. */
export async function runVaultInstruction(ctx: InstructionContext, ix: TxInstruction): Promise<void> {
  const decoded = decodeInstruction(ix.data);
  if (decoded === null) {
    ctx.log('Program log: Instruction: Unknown');
    fail(ix.data.length >= 8 ? 'InstructionDidNotDeserialize' : 'InstructionFallbackNotFound', ctx);
  }
  ctx.log(`Program log: Instruction: ${pascalCase(decoded.name)}`);
  const accounts = namedAccounts(ix, decoded);
  if (accounts === null) throw new ProgramFailure('NotEnoughAccountKeys', 'not enough account keys');
  const now = ctx.blockTime;
  const vault = account(accounts, 'vault' in accounts ? 'vault' : (Object.keys(accounts)[0] ?? '')).address;

  switch (decoded.name) {
    case 'initialize_vault': {
      const { nonce, agentSigner, dailyLimit, name } = decoded.args;
      const authority = requireSigner(accounts, 'authority');
      const [expectedVault, bump] = await findVaultAddress(ctx.programId, authority, nonce);
      const [depositAddress] = await findVaultAuthorityAddress(ctx.programId, vault);
      if (vault !== expectedVault || account(accounts, 'vault_authority').address !== depositAddress)
        fail('ConstraintSeeds', ctx);
      if (ctx.state.programAccounts.has(vault)) fail('AccountAlreadyInitialized', ctx);
      if (dailyLimit === 0n) fail('InvalidDailyLimit', ctx);
      if (Buffer.byteLength(name, 'utf8') > MAX_NAME_BYTES) fail('InvalidPolicy', ctx);
      ctx.transfer(authority, vault, VAULT_RENT);
      const tier = ctx.force.tier ?? 'personal';
      ctx.state.programAccounts.set(vault, {
        kind: 'vault',
        depositAddress,
        config: {
          authority,
          agentSigner,
          dailyLimit,
          spentToday: 0n,
          lastReset: now,
          whitelist: [],
          whitelistCount: 0,
          tier,
          feeBasisPoints: ctx.force.feeBasisPoints ?? 5,
          name,
          paused: false,
          overrideNonce: 0n,
          vaultNonce: nonce,
          bump,
        },
      });
      ctx.emit({ name: 'VaultCreated', data: { vault, authority, tier, dailyLimit } });
      return;
    }
    case 'execute_agent':
    case 'execute_guarded': {
      const { vaultNonce, amount } = decoded.args;
      const signer = decoded.name === 'execute_agent' ? 'agent_signer' : 'authority';
      const entry = loadOwnedVault(ctx, accounts, vaultNonce, signer);
      const destination = checkTransferAccounts(ctx, accounts, entry);
      if (amount === 0n) fail('InvalidAmount', ctx);
      if (entry.config.paused) fail('VaultPaused', ctx);
      resetDayIfDue(entry, now);
      const forced = ctx.force.block;
      if (forced) block(ctx, vault, entry, destination, amount, forced.reason, forced.withOverride);
      const blocked = ctx.force.skipPolicy ? null : transferPolicy(ctx, entry, destination, amount);
      if (blocked) block(ctx, vault, entry, destination, amount, blocked.reason, blocked.withOverride);
      payOut(ctx, vault, entry, destination, amount);
      return;
    }
    case 'create_override': {
      const { vaultNonce, destination, amount, reason } = decoded.args;
      const entry = loadOwnedVault(ctx, accounts, vaultNonce);
      const pending = account(accounts, 'pending_override').address;
      // The PDA is seeded with the vault's current override nonce; any other address breaks the seeds.
      const nonce = entry.config.overrideNonce;
      const [expected, bump] = await findPendingOverrideAddress(ctx.programId, vault, nonce);
      if (pending !== expected) fail('ConstraintSeeds', ctx);
      if (ctx.state.programAccounts.has(pending)) fail('AccountAlreadyInitialized', ctx);
      if (amount === 0n) fail('InvalidAmount', ctx);
      ctx.transfer(entry.config.authority, pending, OVERRIDE_RENT);
      entry.config.overrideNonce += 1n;
      const expiresAt = now + OVERRIDE_TTL_SECONDS;
      ctx.state.programAccounts.set(pending, {
        kind: 'override',
        approved: false,
        value: {
          vault,
          nonce,
          instructionHash: new Uint8Array(32),
          requestedAmount: amount,
          destination,
          expiresAt,
          executed: false,
          overrideType: reason === 'exceeded_daily_limit' ? 'exceeded_limit' : 'emergency',
          bump,
        },
      });
      ctx.emit({ name: 'OverrideCreated', data: { vault, nonce, amount, destination, expiresAt } });
      return;
    }
    case 'approve_override':
    case 'execute_approved_override': {
      const entry = loadOwnedVault(ctx, accounts, decoded.args.vaultNonce);
      const pending = ctx.state.getOverride(account(accounts, 'pending_override').address);
      if (pending === undefined) fail('AccountNotInitialized', ctx);
      if (pending.value.vault !== vault) fail('ConstraintHasOne', ctx);
      if (pending.value.executed) fail('OverrideAlreadyExecuted', ctx);
      if (now > pending.value.expiresAt) fail('OverrideExpired', ctx);
      if (decoded.name === 'approve_override') {
        pending.approved = true;
        ctx.emit({ name: 'OverrideApproved', data: { vault, nonce: pending.value.nonce, timestamp: now } });
        return;
      }
      if (!pending.approved) fail('UnauthorizedSigner', ctx);
      // A paused vault moves no funds, an owner-approved transfer included.
      if (entry.config.paused) fail('VaultPaused', ctx);
      const destination = checkTransferAccounts(ctx, accounts, entry);
      if (destination !== pending.value.destination) fail('InvalidPolicy', ctx);
      pending.value.executed = true;
      payOut(ctx, vault, entry, destination, pending.value.requestedAmount);
      return;
    }
    case 'update_daily_limit': {
      const entry = loadOwnedVault(ctx, accounts, decoded.args.vaultNonce);
      if (decoded.args.newDailyLimit === 0n) fail('InvalidDailyLimit', ctx);
      entry.config.dailyLimit = decoded.args.newDailyLimit;
      emitPolicy(ctx, vault, entry);
      return;
    }
    case 'update_agent_signer': {
      const entry = loadOwnedVault(ctx, accounts, decoded.args.vaultNonce);
      const oldSigner = entry.config.agentSigner;
      entry.config.agentSigner = decoded.args.newAgentSigner;
      ctx.emit({
        name: 'AgentSignerUpdated',
        data: { vault, oldSigner, newSigner: decoded.args.newAgentSigner, timestamp: now },
      });
      return;
    }
    case 'add_to_whitelist':
    case 'remove_from_whitelist': {
      const entry = loadOwnedVault(ctx, accounts, decoded.args.vaultNonce);
      const list = entry.config.whitelist;
      const at = list.indexOf(decoded.args.address);
      if (decoded.name === 'add_to_whitelist') {
        if (at < 0 && list.length >= MAX_WHITELIST) fail('WhitelistFull', ctx);
        if (at < 0) list.push(decoded.args.address);
      } else {
        if (at < 0) fail('WhitelistNotFound', ctx);
        list.splice(at, 1);
      }
      entry.config.whitelistCount = list.length;
      emitPolicy(ctx, vault, entry);
      return;
    }
    case 'pause_vault':
    case 'resume_vault': {
      const entry = loadOwnedVault(ctx, accounts, decoded.args.vaultNonce);
      entry.config.paused = decoded.name === 'pause_vault';
      ctx.emit({ name: entry.config.paused ? 'VaultPaused' : 'VaultResumed', data: { vault } });
      return;
    }
    default:
      fail('InstructionFallbackNotFound', ctx);
  }
}
