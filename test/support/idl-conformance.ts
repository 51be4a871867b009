// The field's own clients read what the service builds: @solana/web3.js (v1) parses the wire
// transaction, @coral-xyz/anchor's BorshCoder (built from the program's IDL file) decodes each
// instruction, and the accounts are resolved from the IDL (fixed addresses, PDA seeds, flags).

import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import anchor, { type Idl } from '@coral-xyz/anchor';
import { PublicKey, VersionedTransaction } from '@solana/web3.js';
import {
  COMPUTE_BUDGET_PROGRAM_ADDRESS,
  ComputeBudgetInstruction,
  identifyComputeBudgetInstruction,
  parseSetComputeUnitLimitInstruction,
  parseSetComputeUnitPriceInstruction,
} from '@solana-program/compute-budget';

const { BN, BorshCoder } = anchor;

export const idl = JSON.parse(
  readFileSync(new URL('../../program/vault-program.idl.json', import.meta.url), 'utf8'),
) as Idl;
export const coder = new BorshCoder(idl);
export const PROGRAM_ID = idl.address;
const COMPUTE_BUDGET = 'ComputeBudget111111111111111111111111111111';

type IdlInstruction = Idl['instructions'][number];
interface IdlAccount {
  name: string;
  writable?: boolean;
  signer?: boolean;
  address?: string;
  pda?: { seeds: IdlSeed[]; program?: unknown };
}
type IdlSeed =
  | { kind: 'const'; value: number[] }
  | { kind: 'arg'; path: string }
  | { kind: 'account'; path: string; account?: string };

/** Anchor's decoded values as plain data: BN → bigint, PublicKey → base58, nested objects and arrays. */
export function plain(value: unknown): unknown {
  if (BN.isBN(value)) return BigInt((value as InstanceType<typeof BN>).toString());
  if (value instanceof PublicKey) return value.toBase58();
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  }
  return value;
}

/** A u64 as anchor takes it (BN), from a bigint. */
export const u64 = (value: bigint) => new BN(value.toString());

export interface DecodedVaultInstruction {
  name: string;
  args: Record<string, unknown>;
  /** IDL account name → address, in the IDL's order. */
  accounts: Record<string, string>;
}

export interface ConformanceExpectation {
  feePayer: string;
  /** Whether the validator issued this blockhash (and it is still valid). */
  isKnownBlockhash: (blockhash: string) => boolean;
  /** The vault program instructions in order, with their args as plain data. */
  instructions: { name: string; args: Record<string, unknown> }[];
  /**
   * An on-chain field a PDA seed reads (`vault.override_nonce`, `pending_override.nonce`): the test
   * reads it from the chain before the transaction runs.
   */
  accountField?: (account: string, address: string, field: string) => bigint;
}

/** Little-endian bytes of a u64 seed. */
function u64Seed(value: bigint): Buffer {
  const bytes = Buffer.alloc(8);
  bytes.writeBigUInt64LE(value);
  return bytes;
}

function seedBytes(
  seed: IdlSeed,
  ix: IdlInstruction,
  args: Record<string, unknown>,
  accounts: Record<string, string>,
  accountField: ConformanceExpectation['accountField'],
): Buffer {
  if (seed.kind === 'const') return Buffer.from(seed.value);
  if (seed.kind === 'arg') {
    const arg = ix.args.find((a) => a.name === seed.path);
    assert.ok(arg, `${ix.name}: seed arg ${seed.path} is an argument`);
    const value = args[seed.path];
    if (arg.type === 'u64') return u64Seed(value as bigint);
    if (arg.type === 'pubkey') return new PublicKey(value as string).toBuffer();
    throw new Error(`${ix.name}: seed arg type ${JSON.stringify(arg.type)} not handled`);
  }
  const [account, field] = seed.path.split('.');
  const address = accounts[account ?? ''];
  assert.ok(address, `${ix.name}: seed account ${account} is one of its accounts`);
  if (field === undefined) return new PublicKey(address).toBuffer();
  assert.ok(accountField, `${ix.name}: seed ${seed.path} reads an on-chain account`);
  return u64Seed(accountField(seed.account ?? '', address, field));
}

/**
 * Parses a base64 wire transaction the service built with web3.js v1 and anchor, checks the
 * message against the expectation and the IDL, and returns the decoded vault instructions.
 */
/**
 * The compute budget of a built transaction, decoded by the Compute Budget program's own client
 * (@solana-program/compute-budget): SetComputeUnitLimit first, then SetComputeUnitPrice (when priced).
 */
export function readComputeBudget(base64: string): { units: number; microLamports: bigint | null } {
  const { message } = VersionedTransaction.deserialize(Buffer.from(base64, 'base64'));
  const keys = message.staticAccountKeys.map((key) => key.toBase58());
  const budget = message.compiledInstructions
    .map((compiled, index) => ({ index, compiled, program: keys[compiled.programIdIndex] }))
    .filter(({ program }) => program === COMPUTE_BUDGET_PROGRAM_ADDRESS);
  const kinds = budget.map(({ compiled }) => identifyComputeBudgetInstruction(compiled.data));
  assert.deepEqual(
    budget.map(({ index }) => index),
    kinds.map((_, i) => i),
    'the compute budget instructions come first',
  );
  assert.equal(kinds[0], ComputeBudgetInstruction.SetComputeUnitLimit, 'SetComputeUnitLimit first');
  const asInstruction = (data: Uint8Array) => ({ programAddress: COMPUTE_BUDGET_PROGRAM_ADDRESS, data });
  const units = parseSetComputeUnitLimitInstruction(asInstruction(budget[0]!.compiled.data)).data.units;
  if (kinds.length === 1) return { units, microLamports: null };
  assert.equal(kinds.length, 2);
  assert.equal(kinds[1], ComputeBudgetInstruction.SetComputeUnitPrice, 'SetComputeUnitPrice second');
  const { microLamports } = parseSetComputeUnitPriceInstruction(asInstruction(budget[1]!.compiled.data)).data;
  return { units, microLamports: BigInt(microLamports) };
}

export function checkBuiltTransaction(
  base64: string,
  expected: ConformanceExpectation,
): DecodedVaultInstruction[] {
  const tx = VersionedTransaction.deserialize(Buffer.from(base64, 'base64'));
  const { message } = tx;
  const budget = readComputeBudget(base64);
  assert.ok(
    budget.units > 0 && budget.units <= 1_400_000,
    `a compute unit limit the runtime accepts: ${budget.units}`,
  );
  const keys = message.staticAccountKeys.map((key) => key.toBase58());
  assert.equal(keys[0], expected.feePayer, 'the fee payer is the first account');
  assert.ok(expected.isKnownBlockhash(message.recentBlockhash), "the recent blockhash is the validator's");
  assert.equal(message.header.numRequiredSignatures, 1, 'one required signature: the fee payer');
  assert.equal(tx.signatures.length, 1, 'one signature slot');
  assert.ok(
    tx.signatures[0]?.every((byte) => byte === 0),
    'the signature slot is empty (unsigned)',
  );
  assert.ok(message.isAccountSigner(0) && message.isAccountWritable(0), 'the fee payer signs and pays');
  assert.equal(message.addressTableLookups.length, 0, 'no address lookup tables');

  // Each key's expected flags: the union of what every instruction's IDL entry asks of it.
  const flags = new Map<string, { signer: boolean; writable: boolean }>(
    keys.map((key) => [key, { signer: false, writable: false }]),
  );
  flags.set(expected.feePayer, { signer: true, writable: true });
  const decoded: DecodedVaultInstruction[] = [];
  for (const compiled of message.compiledInstructions) {
    const program = keys[compiled.programIdIndex];
    if (program === COMPUTE_BUDGET) {
      assert.equal(compiled.accountKeyIndexes.length, 0, 'compute budget instructions take no accounts');
      continue;
    }
    assert.equal(program, PROGRAM_ID, 'every other instruction is the vault program');
    const ix = coder.instruction.decode(Buffer.from(compiled.data));
    assert.ok(ix, 'anchor decodes the instruction data');
    const reencoded = coder.instruction.encode(ix.name, ix.data);
    assert.deepEqual(Buffer.from(compiled.data), reencoded, `${ix.name}: no bytes past the IDL's args`);
    const idlIx = idl.instructions.find((entry) => entry.name === ix.name);
    assert.ok(idlIx);
    const idlAccounts = idlIx.accounts as IdlAccount[];
    assert.equal(
      compiled.accountKeyIndexes.length,
      idlAccounts.length,
      `${ix.name}: the IDL's account count`,
    );
    const accounts: Record<string, string> = {};
    idlAccounts.forEach((account, i) => {
      accounts[account.name] = keys[compiled.accountKeyIndexes[i] ?? -1] ?? '';
    });
    const args = plain(ix.data) as Record<string, unknown>;
    for (const account of idlAccounts) {
      const address = accounts[account.name] ?? '';
      if (account.address !== undefined) assert.equal(address, account.address, `${ix.name}.${account.name}`);
      if (account.pda !== undefined) {
        assert.equal(account.pda.program, undefined, 'seeds of the vault program itself');
        const seeds = account.pda.seeds.map((seed) =>
          seedBytes(seed, idlIx, args, accounts, expected.accountField),
        );
        const [pda] = PublicKey.findProgramAddressSync(seeds, new PublicKey(PROGRAM_ID));
        assert.equal(address, pda.toBase58(), `${ix.name}.${account.name} is the PDA of its IDL seeds`);
      }
      const flag = flags.get(address);
      assert.ok(flag);
      flag.signer ||= account.signer === true;
      flag.writable ||= account.writable === true;
    }
    decoded.push({ name: ix.name, args, accounts });
  }
  keys.forEach((key, i) => {
    const want = flags.get(key);
    assert.deepEqual(
      { signer: message.isAccountSigner(i), writable: message.isAccountWritable(i) },
      want,
      `flags of ${key} are what the IDL asks of it`,
    );
  });
  assert.deepEqual(
    decoded.map(({ name, args }) => ({ name, args })),
    expected.instructions,
    'the vault instructions and their args',
  );
  return decoded;
}

type IdlField = { name: string; type: unknown };

/** A plain value (bigint, base58 string) in the form anchor's coder takes for this IDL type. */
function toAnchor(type: unknown, value: unknown): unknown {
  if (type === 'pubkey') return new PublicKey(value as string);
  if (type === 'u64' || type === 'i64') return u64(value as bigint);
  if (typeof type === 'object' && type !== null && 'option' in type) {
    return value === null ? null : toAnchor((type as { option: unknown }).option, value);
  }
  return value;
}

/** An event encoded by anchor's coder from the IDL: discriminator + borsh body, as `Program data:` prints it. */
export function encodeAnchorEvent(name: string, data: Record<string, unknown>): string {
  const event = idl.events?.find((entry) => entry.name === name);
  const type = idl.types?.find((entry) => entry.name === name);
  assert.ok(event && type && type.type.kind === 'struct', `the IDL declares event ${name}`);
  const fields = type.type.fields as IdlField[];
  assert.deepEqual(
    Object.keys(data).sort(),
    fields.map((f) => f.name).sort(),
    `${name}: every field, no other`,
  );
  const body = coder.types.encode(
    name,
    Object.fromEntries(fields.map((field) => [field.name, toAnchor(field.type, data[field.name])])),
  );
  const base64 = Buffer.concat([Buffer.from(event.discriminator), body]).toString('base64');
  assert.deepEqual(
    plain(coder.events.decode(base64)),
    { name, data },
    `${name}: anchor reads back its encoding`,
  );
  return base64;
}
