import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type Address, createSolanaRpc } from '@solana/kit';
import { getFields, type IdlType } from '../../dev/validator/program-idl.js';
import { decodeVaultConfig } from '../../src/chain/accounts.js';
import { createChainReader } from '../../src/chain/chain-reader.js';
import { findVaultAuthorityAddress } from '../../src/chain/pdas.js';
import { VAULT_CONFIG_SIZE } from '../../src/chain/program.js';
import { decodeVaultAccount, readVaultStateOnce } from '../../src/chain/vault-state-reader.js';
import { createLogCapture } from '../support/app.js';
import { SOL, useIngestionHarness } from '../support/ingestion-harness.js';
import { waitForSignatures } from '../support/wait.js';

const h = useIngestionHarness();

/** Bytes of an IDL type (the fixed-size ones a VaultConfig holds). */
function sizeOf(type: IdlType): number {
  if (typeof type === 'string') {
    const sizes: Record<string, number> = { pubkey: 32, u64: 8, i64: 8, u16: 2, u8: 1, bool: 1 };
    const size = sizes[type];
    if (size === undefined) throw new TypeError(`no fixed size for ${type}`);
    return size;
  }
  if ('array' in type) return sizeOf(type.array[0]) * type.array[1];
  if ('defined' in type) return 1; // VaultTier: a one-byte enum
  throw new TypeError(`no fixed size for ${JSON.stringify(type)}`);
}

/** The same account in the program's earlier layout: the IDL's VaultConfig without `vault_nonce`. */
function earlierLayout(current: Uint8Array): Uint8Array {
  let offset = 8; // the discriminator
  for (const field of getFields('VaultConfig')) {
    const size = sizeOf(field.type);
    if (field.name === 'vault_nonce') {
      return new Uint8Array([...current.subarray(0, offset), ...current.subarray(offset + size)]);
    }
    offset += size;
  }
  throw new Error('the IDL has no vault_nonce');
}

const warningsAbout = (lines: readonly string[], account: string) =>
  lines.filter((l) => l.includes('"level":"warn"') && l.includes(account));

describe('VaultConfig of an earlier layout', () => {
  test('is skipped with one warning naming it and its size, wherever it is read, and never decoded', async () => {
    const created = await h.fake.createVault({ dailyLimit: 3n * SOL, name: 'Old layout' });
    const current = h.fake.state.accountInfo(created.vault)!.data;
    assert.equal(current.length, VAULT_CONFIG_SIZE);
    const old = earlierLayout(current);
    assert.equal(old.length, VAULT_CONFIG_SIZE - 8);
    assert.throws(() => decodeVaultConfig(old), { code: 'ACCOUNT_SIZE_INVALID' });
    h.fake.setRawAccount(created.vault, old);

    // Ingestion reads the account on VaultCreated: the vault comes from the event, nothing from the account.
    const logs = createLogCapture();
    h.start({}, { logs });
    await waitForSignatures(h.storage.storage, [created.signature]);
    const row = await h.vaultRow(created.vault);
    assert.equal(row.dailyLimit, 3n * SOL);
    assert.equal(row.vaultNonce, null);
    assert.equal(row.agentSigner, '');
    assert.equal(row.name, '');

    // A single read (the budget's) and what an account subscription delivers: skipped alike.
    const rpc = createSolanaRpc(h.fake.rpcUrl);
    const [deposit] = await findVaultAuthorityAddress(h.fake.programId, created.vault);
    const state = await readVaultStateOnce(
      rpc,
      h.fake.programId,
      created.vault,
      deposit,
      AbortSignal.timeout(5_000),
      h.deps.logger,
    );
    assert.deepEqual(state.vault, { status: 'invalid' });
    const skipped: [string, number][] = [];
    const encoded = {
      owner: h.fake.programId,
      lamports: 1n,
      data: [Buffer.from(old).toString('base64'), 'base64'] as const,
    };
    assert.deepEqual(
      decodeVaultAccount(encoded, h.fake.programId, (error, size) => skipped.push([error.code, size])),
      { status: 'invalid' },
    );
    assert.deepEqual(skipped, [['ACCOUNT_SIZE_INVALID', old.length]]);
    const reader = createChainReader({ rpc, programId: h.fake.programId as Address, logger: h.deps.logger });
    const reads = await reader.readVaults([created.vault, created.vault], 0);
    assert.equal(reads.get(created.vault)?.state, null);

    const warnings = warningsAbout(logs.lines, created.vault);
    assert.equal(warnings.length, 1, warnings.join('\n'));
    const warning = JSON.parse(warnings[0]!) as { account: string; size: number; msg: string };
    assert.equal(warning.account, created.vault);
    assert.equal(warning.size, VAULT_CONFIG_SIZE - 8);
    assert.match(warning.msg, new RegExp(`${created.vault} is ${VAULT_CONFIG_SIZE - 8} bytes`));
  });
});
