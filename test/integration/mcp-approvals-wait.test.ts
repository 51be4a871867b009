// The client package's approvals.get / approvals.wait and the route behind them
// (GET /api/vaults/:address/approvals/:signature?waitMs=): only a pending approval is held (a transfer
// not seen is answered at once), an aborted wait leaves nothing behind, and bad input is refused naming the field.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createVaultkeeperClient, VaultkeeperError } from '@vaultkeeper/client';
import { randomAddress } from '../support/factories.js';
import { blockTransfer, SOL, useServiceWithIngestor } from '../support/mcp-session.js';
import { waitFor, waitForSignatures } from '../support/wait.js';

const service = useServiceWithIngestor();
const client = () => createVaultkeeperClient({ baseUrl: service.baseUrl });
const UNSEEN = '5'.repeat(88);

describe('approvals.get and approvals.wait (client package)', () => {
  test('a transfer not seen yet is none with nulls, at once even when waited for (nothing is held); a transfer blocked for funds is none with its amount', async () => {
    const b = await blockTransfer(service.h);
    const none = {
      status: 'none',
      nonce: null,
      amount: null,
      destination: null,
      expiresAt: null,
      blinkUrl: null,
      approvalUrl: null,
    };
    assert.deepEqual(await client().approvals.get({ vault: b.vault, signature: UNSEEN }), none);
    // Held, this would take the whole minute (the test's deadline fails it first).
    const unseen = await client().approvals.wait({
      vault: b.vault,
      signature: UNSEEN,
      timeoutMs: 60_000,
      signal: AbortSignal.timeout(30_000),
    });
    assert.deepEqual(unseen, none);
    assert.equal(await heldRequests(), 0);
    const funds = await service.h.fake.block(b.vault, { amount: 500n * SOL, reason: 'insufficient_funds' });
    await waitForSignatures(service.h.storage.storage, [funds.signature]);
    const settled = await client().approvals.wait({
      vault: b.vault,
      signature: funds.signature,
      timeoutMs: 20_000,
    });
    assert.deepEqual([settled.status, settled.amount, settled.nonce], ['none', String(500n * SOL), null]);
    const pending = await client().approvals.wait({ vault: b.vault, signature: b.signature, timeoutMs: 300 });
    assert.equal(pending.status, 'pending', 'undecided at the timeout');
    assert.equal(pending.amount, String(b.amount));
  });

  test('aborting a wait rejects with the reason and releases the request the service held', async () => {
    const b = await blockTransfer(service.h);
    const controller = new AbortController();
    const waiting = client().approvals.wait({
      vault: b.vault,
      signature: b.signature,
      timeoutMs: 60_000,
      signal: controller.signal,
    });
    await waitFor(async () => (await heldRequests()) === 1, { message: 'the service holds the wait' });
    controller.abort(new Error('agent stopped'));
    await assert.rejects(waiting, /agent stopped/);
    await waitFor(async () => (await heldRequests()) === 0, { message: 'the held request released' });
  });

  test('an unknown vault is 404, a bad signature or waitMs is 400 naming the field', async () => {
    const b = await blockTransfer(service.h);
    const refused = async (vault: string, signature: string, query = '') => {
      const res = await service.app.inject({
        method: 'GET',
        url: `/api/vaults/${vault}/approvals/${signature}${query}`,
      });
      return { status: res.statusCode, body: res.json() };
    };
    const unknown = await refused(randomAddress(), b.signature);
    assert.deepEqual([unknown.status, unknown.body.code], [404, 'VAULT_NOT_FOUND']);
    const badSignature = await refused(b.vault, 'abc');
    assert.equal(badSignature.status, 400);
    assert.match(badSignature.body.error, /^signature: /);
    const badWait = await refused(b.vault, b.signature, '?waitMs=60001');
    assert.equal(badWait.status, 400);
    assert.match(badWait.body.error, /^waitMs: /);
    await assert.rejects(
      client().approvals.get({ vault: randomAddress(), signature: b.signature }),
      (error) => {
        assert.ok(error instanceof VaultkeeperError);
        assert.equal(error.code, 'VAULT_NOT_FOUND');
        return true;
      },
    );
  });
});

/** Requests the service holds now, from its metrics. */
async function heldRequests(): Promise<number> {
  const res = await service.app.inject({ method: 'GET', url: '/metrics' });
  const line = res.body.split('\n').find((l) => l.includes('structure="approval_waits"'));
  return line === undefined ? -1 : Number(line.split(' ').at(-1));
}
