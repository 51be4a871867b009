import { randomBytes } from 'node:crypto';
import type { Address } from '@solana/kit';
import { setRawAccount, setVaultState, type VaultStatePatch } from './account-overrides.js';
import { executeTransaction, type TransactionInput } from './executor.js';
import { type BlockReason, encodeProgramEvent, type ProgramEvent, type VaultTier } from './program-events.js';
import { SYSTEM_PROGRAM_ADDRESS } from './program-idl.js';
import {
  buildVaultInstruction,
  findPendingOverrideAddress,
  findVaultAddress,
  findVaultAuthorityAddress,
  type InstructionArgsMap,
} from './program-instructions.js';
import {
  type LedgerState,
  randomBase58,
  type TransactionError,
  type TxInstruction,
  type VaultEntry,
} from './state.js';

/** Scenario methods: drive the fake chain the way real users, agents and attackers would. */

/** Lamports from a test or from JSON (numbers and decimal strings are accepted). */
export type Lamports = bigint | number | string;
export type ScenarioResult = {
  signature: string;
  slot: number;
  err: TransactionError | null;
  events: ProgramEvent[];
};
export type CreateVaultInput = {
  authority?: Address;
  agentSigner?: Address;
  dailyLimit: Lamports;
  name?: string;
  tier?: VaultTier;
  nonce?: Lamports;
  feeBasisPoints?: number;
};

export const randomAddress = (): Address => randomBase58(32) as Address;
const randomU64 = (): bigint => randomBytes(8).readBigUInt64LE();
const FAUCET = 'Faucet1111111111111111111111111111111111111' as Address;

function systemTransfer(from: Address, to: Address, lamports: bigint): TxInstruction {
  const data = Buffer.alloc(12);
  data.writeUInt32LE(2, 0);
  data.writeBigUInt64LE(lamports, 4);
  return {
    programAddress: SYSTEM_PROGRAM_ADDRESS,
    accounts: [
      { address: from, isSigner: true, isWritable: true },
      { address: to, isSigner: false, isWritable: true },
    ],
    data: new Uint8Array(data),
  };
}

export function createScenarios(state: LedgerState, treasury: Address) {
  const programId = state.programId;

  async function run(input: TransactionInput, expectSuccess: boolean): Promise<ScenarioResult> {
    const { record, err } = await executeTransaction(state, treasury, input);
    if (expectSuccess && err !== null) {
      throw new Error(`fake validator: transaction failed ${JSON.stringify(err)}\n${record.logs.join('\n')}`);
    }
    return { signature: record.signature, slot: record.slot, err, events: record.events };
  }

  function vaultOf(vault: Address): VaultEntry {
    const entry = state.getVault(vault);
    if (entry === undefined) throw new Error(`fake validator: unknown vault ${vault}`);
    return entry;
  }

  type VaultArgs<K extends keyof InstructionArgsMap> = Omit<InstructionArgsMap[K], 'vaultNonce'>;

  /** An instruction on an existing vault: its own accounts and nonce, plus `accounts`. */
  function vaultInstruction<K extends keyof InstructionArgsMap>(
    name: K,
    vault: Address,
    args: VaultArgs<K>,
    accounts: Readonly<Record<string, Address>> = {},
  ): TxInstruction {
    const { config, depositAddress } = vaultOf(vault);
    const named = {
      vault,
      authority: config.authority,
      agent_signer: config.agentSigner,
      vault_authority: depositAddress,
      fee_treasury: treasury,
      ...accounts,
    };
    return buildVaultInstruction(programId, name, named, {
      vaultNonce: config.vaultNonce,
      ...args,
    } as InstructionArgsMap[K]);
  }

  function agentTransfer(
    vault: Address,
    destination: Address,
    amount: bigint,
    agent?: Address,
  ): TxInstruction {
    const signer: Record<string, Address> = agent === undefined ? {} : { agent_signer: agent };
    return vaultInstruction('execute_agent', vault, { amount }, { destination, ...signer });
  }

  function ownerTx<K extends keyof InstructionArgsMap>(
    name: K,
    vault: Address,
    args: VaultArgs<K>,
    accounts?: Readonly<Record<string, Address>>,
  ): Promise<ScenarioResult> {
    const ix = vaultInstruction(name, vault, args, accounts);
    return run({ feePayer: vaultOf(vault).config.authority, instructions: [ix] }, true);
  }

  const pendingOverrideOf = async (vault: Address, nonce: bigint) =>
    (await findPendingOverrideAddress(programId, vault, nonce))[0];

  async function airdrop(address: Address, lamports: Lamports): Promise<ScenarioResult> {
    const amount = BigInt(lamports);
    state.credit(FAUCET, amount + 5000n);
    return run({ feePayer: FAUCET, instructions: [systemTransfer(FAUCET, address, amount)] }, true);
  }

  /** An agent transfer; with enforcePolicy the program judges it (and may fail it), `agent` signs instead of the vault's agent. */
  async function execute(
    vault: Address,
    opts: { destination?: Address; amount: Lamports; enforcePolicy?: boolean; agent?: Address },
  ): Promise<ScenarioResult> {
    const ix = agentTransfer(vault, opts.destination ?? randomAddress(), BigInt(opts.amount), opts.agent);
    const force = { skipPolicy: opts.enforcePolicy !== true };
    return run(
      { feePayer: opts.agent ?? vaultOf(vault).config.agentSigner, instructions: [ix], force },
      opts.enforcePolicy !== true,
    );
  }

  async function block(
    vault: Address,
    opts: { destination?: Address; amount: Lamports; reason: BlockReason; withOverride?: boolean },
  ): Promise<ScenarioResult & { overrideNonce: bigint | null }> {
    const withOverride = opts.withOverride ?? opts.reason !== 'insufficient_funds';
    const overrideNonce = withOverride ? vaultOf(vault).config.overrideNonce : null;
    const ix = agentTransfer(vault, opts.destination ?? randomAddress(), BigInt(opts.amount));
    const force = { block: { reason: opts.reason, withOverride } };
    const result = await run(
      { feePayer: vaultOf(vault).config.agentSigner, instructions: [ix], force },
      false,
    );
    return { ...result, overrideNonce };
  }

  async function createVault(input: CreateVaultInput) {
    const authority = input.authority ?? randomAddress();
    const agentSigner = input.agentSigner ?? randomAddress();
    const nonce = input.nonce === undefined ? randomU64() : BigInt(input.nonce);
    const [vault] = await findVaultAddress(programId, authority, nonce);
    const [vaultAuthority] = await findVaultAuthorityAddress(programId, vault);
    const ix = buildVaultInstruction(
      programId,
      'initialize_vault',
      { vault, vault_authority: vaultAuthority, authority },
      { nonce, agentSigner, dailyLimit: BigInt(input.dailyLimit), name: input.name ?? 'Test vault' },
    );
    const force = { tier: input.tier, feeBasisPoints: input.feeBasisPoints };
    const result = await run({ feePayer: authority, instructions: [ix], force }, true);
    return { ...result, vault, depositAddress: vaultOf(vault).depositAddress, authority, agentSigner, nonce };
  }

  /** A plain system transfer into the vault's deposit address (not a vault program transaction). */
  async function deposit(vault: Address, lamports: Lamports): Promise<ScenarioResult & { balance: bigint }> {
    const { depositAddress } = vaultOf(vault);
    const result = await airdrop(depositAddress, lamports);
    return { ...result, balance: state.balance(depositAddress) };
  }

  return {
    airdrop,
    execute,
    block,
    createVault,
    deposit,
    /** Rewrites a vault's account and balance in a new slot (see account-overrides.ts). */
    setVaultState: (vault: Address, patch: VaultStatePatch) => setVaultState(state, vault, patch),
    /** Places raw program-owned bytes at an address (see account-overrides.ts). */
    setRawAccount: (address: Address, data: Uint8Array, lamports?: Lamports) =>
      setRawAccount(state, address, data, lamports),

    async createOverride(
      vault: Address,
      opts: { destination: Address; amount: Lamports; reason?: BlockReason; nonce?: Lamports },
    ): Promise<ScenarioResult & { nonce: bigint; pendingOverride: Address }> {
      const nonce = opts.nonce === undefined ? vaultOf(vault).config.overrideNonce : BigInt(opts.nonce);
      const pendingOverride = await pendingOverrideOf(vault, nonce);
      const args = {
        destination: opts.destination,
        amount: BigInt(opts.amount),
        reason: opts.reason ?? 'exceeded_daily_limit',
      };
      const result = await ownerTx('create_override', vault, args, { pending_override: pendingOverride });
      return { ...result, nonce, pendingOverride };
    },

    approveOverride: async (vault: Address, nonce: Lamports) =>
      ownerTx(
        'approve_override',
        vault,
        {},
        { pending_override: await pendingOverrideOf(vault, BigInt(nonce)) },
      ),

    async executeApprovedOverride(vault: Address, nonce: Lamports): Promise<ScenarioResult> {
      const pda = await pendingOverrideOf(vault, BigInt(nonce));
      const pending = state.getOverride(pda);
      if (pending === undefined) throw new Error(`fake validator: no override ${String(nonce)} for ${vault}`);
      const destination = pending.value.destination;
      return ownerTx('execute_approved_override', vault, {}, { pending_override: pda, destination });
    },

    pause: (vault: Address) => ownerTx('pause_vault', vault, {}),
    resume: (vault: Address) => ownerTx('resume_vault', vault, {}),
    updateDailyLimit: (vault: Address, limit: Lamports) =>
      ownerTx('update_daily_limit', vault, { newDailyLimit: BigInt(limit) }),
    addToWhitelist: (vault: Address, address: Address) => ownerTx('add_to_whitelist', vault, { address }),
    removeFromWhitelist: (vault: Address, address: Address) =>
      ownerTx('remove_from_whitelist', vault, { address }),
    updateAgentSigner: (vault: Address, newAgentSigner: Address) =>
      ownerTx('update_agent_signer', vault, { newAgentSigner }),

    /** Another program prints a `Program data:` look-alike of a vault event in a tx that mentions the vault program. */
    async forgedEvent(input: ProgramEvent | { vault: Address; amount?: Lamports }): Promise<ScenarioResult> {
      const event: ProgramEvent =
        'name' in input
          ? input
          : {
              name: 'TransactionExecuted',
              data: {
                vault: input.vault,
                amount: BigInt(input.amount ?? 10n ** 12n),
                destination: randomAddress(),
                feeCollected: 0n,
                newBalance: 0n,
                spentToday: 0n,
              },
            };
      const attacker = randomAddress();
      const ix = {
        programAddress: attacker,
        accounts: [{ address: programId, isSigner: false, isWritable: false }],
        data: new Uint8Array([1]),
      };
      const line = `Program data: ${Buffer.from(encodeProgramEvent(event)).toString('base64')}`;
      const scriptedLogs = new Map([[0, ['Program log: Instruction: Forge', line]]]);
      return run({ feePayer: randomAddress(), instructions: [ix], scriptedLogs }, true);
    },

    /** The vault program emits an event with a discriminator this service does not know. */
    async unknownEvent(bytes?: Uint8Array): Promise<ScenarioResult> {
      const payload = bytes ?? new Uint8Array([0xde, 0xad, 0xbe, 0xef, 1, 2, 3, 4, 42]);
      const ix = { programAddress: programId, accounts: [], data: new Uint8Array(payload.subarray(0, 8)) };
      const line = `Program data: ${Buffer.from(payload).toString('base64')}`;
      const scriptedLogs = new Map([[0, ['Program log: Instruction: Migrate', line]]]);
      return run({ feePayer: randomAddress(), instructions: [ix], scriptedLogs }, true);
    },

    /** A failed transaction whose logs still carry a TransactionExecuted (a later instruction fails). */
    async failedWithEvents(
      vault: Address,
      opts: { destination?: Address; amount: Lamports },
    ): Promise<ScenarioResult> {
      const transfer = agentTransfer(vault, opts.destination ?? randomAddress(), BigInt(opts.amount));
      const invalid = vaultInstruction('update_daily_limit', vault, { newDailyLimit: 0n });
      const instructions = [transfer, invalid];
      const input = {
        feePayer: vaultOf(vault).config.agentSigner,
        instructions,
        force: { skipPolicy: true },
      };
      return run(input, false);
    },

    /** One transaction with several transfers whose logs are cut after `keepEvents` events. */
    async truncatedLogs(
      vault: Address,
      opts: { transfers?: number; keepEvents?: number; amount?: Lamports } = {},
    ): Promise<ScenarioResult> {
      const amount = BigInt(opts.amount ?? 1000);
      const instructions = Array.from({ length: opts.transfers ?? 3 }, () =>
        agentTransfer(vault, randomAddress(), amount),
      );
      const input = {
        feePayer: vaultOf(vault).config.agentSigner,
        instructions,
        force: { skipPolicy: true },
      };
      return run({ ...input, truncateAfterEvents: opts.keepEvents ?? 1 }, true);
    },

    /** Many agent transfers quickly (every blockEvery-th blocked); funds the vault first. */
    async burst(
      count: number,
      opts: {
        vault?: Address;
        amount?: Lamports;
        destination?: Address;
        blockEvery?: number;
        perSlot?: number;
      } = {},
    ): Promise<{ vault: Address; signatures: string[] }> {
      const amount = BigInt(opts.amount ?? 1000);
      const vault =
        opts.vault ??
        (await createVault({ dailyLimit: amount * BigInt(count) + 1n, name: 'Burst vault' })).vault;
      const { config } = vaultOf(vault);
      const perTransfer = amount + (amount * BigInt(config.feeBasisPoints)) / 10_000n;
      await deposit(vault, perTransfer * BigInt(count));
      const destination = opts.destination ?? randomAddress();
      const signatures: string[] = [];
      for (let i = 0; i < count; i++) {
        const blocked = opts.blockEvery !== undefined && (i + 1) % opts.blockEvery === 0;
        const force = blocked
          ? { block: { reason: 'not_whitelisted' as const, withOverride: false } }
          : { skipPolicy: true };
        const ix = agentTransfer(vault, destination, amount);
        const sameSlot = i % (opts.perSlot ?? 1) !== 0;
        const result = await run(
          { feePayer: config.agentSigner, instructions: [ix], force, sameSlot },
          false,
        );
        signatures.push(result.signature);
      }
      return { vault, signatures };
    },
  };
}

export type Scenarios = ReturnType<typeof createScenarios>;
