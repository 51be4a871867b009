// DEMO_MODE's ledger guard: the start check (every RPC on this machine, serving no public cluster's
// genesis), and the re-check whenever a connection to an endpoint is established again.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { createOwner } from '../../dev/demo/owner.js';
import { saveOwnerKeypair } from '../../dev/demo/owner-access.js';
import { type FakeValidator, startFakeValidator } from '../../dev/validator/index.js';
import { LOCAL_GENESIS_HASH } from '../../dev/validator/rpc.js';
import { readGenesisHash, watchDemoLedger } from '../../src/chain/demo-cluster.js';
import { createRpcEndpoints } from '../../src/chain/rpc-endpoints.js';
import { runLogSubscription } from '../../src/chain/subscription.js';
import { createDemoGuard, PUBLIC_GENESIS_HASHES } from '../../src/domain/demo/demo-guard.js';
import { createLogger } from '../../src/lib/logger.js';
import { StartError } from '../../src/lib/start-error.js';
import { createLogCapture } from '../support/app.js';
import { freePort } from '../support/ports.js';
import { useTestApps } from '../support/test-apps.js';
import { waitFor } from '../support/wait.js';

const DEVNET = 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG';
/** Another local ledger: solana-test-validator makes a new genesis for every new ledger. */
const OTHER_LOCAL_GENESIS = '4sGjMW1sUnHzSxGspuhpqLDx6wiyjNtZAMdL4VZHirAn';

/** What the guard logs, one line per call. */
function captureLog() {
  const lines: string[] = [];
  return {
    lines,
    error: (_: object, m: string) => lines.push(m),
    warn: (_: object, m: string) => lines.push(m),
  };
}

const endpointOf = (v: FakeValidator) => ({ rpcUrl: v.rpcUrl, wsUrl: v.wsUrl });

const world = useTestApps();
let dir: string;
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'vk-demo-guard-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('the start check', () => {
  test('every RPC must be on this machine and serve a genesis no public cluster has', async () => {
    const validators = await Promise.all(
      [...Object.keys(PUBLIC_GENESIS_HASHES), LOCAL_GENESIS_HASH].map((genesisHash) =>
        startFakeValidator({ genesisHash }),
      ),
    );
    const start = (endpoints: { rpcUrl: string; wsUrl: string }[]) =>
      createDemoGuard({ endpoints, readGenesisHash, log: captureLog() }).verifyAtStart();
    const refused = (pattern: RegExp) => (error: unknown) => {
      assert.ok(error instanceof StartError);
      assert.match(error.message, pattern);
      assert.doesNotMatch(error.message, /s3cret/);
      return true;
    };
    try {
      const local = endpointOf(validators.at(-1)!);
      await start([local]);
      for (const [i, cluster] of Object.values(PUBLIC_GENESIS_HASHES).entries()) {
        // A public cluster anywhere in the failover list is enough to refuse.
        const publicOne = {
          ...endpointOf(validators[i]!),
          rpcUrl: `${validators[i]!.rpcUrl}/?api-key=s3cret`,
        };
        await assert.rejects(
          start([local, publicOne]),
          refused(new RegExp(`DEMO_MODE refused: the RPC at 127\\.0\\.0\\.1:\\d+ serves ${cluster}`)),
        );
      }
      // Loopback is not enough by itself (a tunnel to a public node), and not optional either.
      for (const remote of [
        { rpcUrl: 'https://rpc.example.com/?api-key=s3cret', wsUrl: local.wsUrl },
        { rpcUrl: local.rpcUrl, wsUrl: 'wss://rpc.example.com/s3cret' },
        { rpcUrl: 'http://10.0.0.5:8899', wsUrl: 'ws://10.0.0.5:8900' },
      ]) {
        await assert.rejects(start([local, remote]), refused(/is not on this machine/));
      }
      const closed = `http://127.0.0.1:${await freePort()}`;
      await assert.rejects(start([{ rpcUrl: closed, wsUrl: closed.replace('http', 'ws') }]), /could not ask/);
    } finally {
      await Promise.all(validators.map((v) => v.close()));
    }
  });
});

describe('the re-check when a connection is established again', () => {
  test('HTTP calls answering after an outage, from a node now on devnet: the wallet is refused, loudly', async () => {
    const validator = await startFakeValidator({ genesisHash: LOCAL_GENESIS_HASH });
    const owner = createOwner('http://127.0.0.1:1', validator.rpcUrl);
    const logs = createLogCapture();
    const env = {
      DEMO_MODE: 'true',
      DEMO_OWNER_KEYPAIR: saveOwnerKeypair(owner, dir),
      SOLANA_CLUSTER: 'localnet',
      SOLANA_RPC_URL: validator.rpcUrl,
      SOLANA_WS_URL: validator.wsUrl,
    };
    const { app, deps } = await world.start({ env, logs });
    try {
      assert.equal((await app.inject('/api/demo/wallet')).statusCode, 200);
      validator.setGenesisHash(DEVNET);
      // Nothing reconnected yet: the genesis read at start stands.
      assert.equal((await app.inject('/api/demo/wallet')).statusCode, 200);
      validator.setOutage(true);
      await assert.rejects(deps.rpc.getSlot().send());
      validator.setOutage(false);
      await deps.rpc.getSlot().send();
      await waitFor(() => logs.lines.some((l) => l.includes('DEMO_MODE SWITCHED OFF')), {
        message: 'the switch-off logged',
      });
      const line = logs.lines.find((l) => l.includes('DEMO_MODE SWITCHED OFF'))!;
      assert.match(line, /"level":"error"/);
      assert.match(line, /the RPC at 127\.0\.0\.1:\d+ serves devnet/);
      const refused = await app.inject('/api/demo/wallet');
      assert.equal(refused.statusCode, 503);
      assert.equal(refused.json().details.reason, 'demo_off');
      assert.doesNotMatch(refused.body, /secretKey/);
      // Off for good: the node serving the local ledger again does not bring the key back.
      validator.setGenesisHash(LOCAL_GENESIS_HASH);
      validator.setOutage(true);
      await assert.rejects(deps.rpc.getSlot().send());
      validator.setOutage(false);
      await deps.rpc.getSlot().send();
      assert.equal((await app.inject('/api/demo/wallet')).statusCode, 503);
    } finally {
      await validator.close();
    }
  });

  test('the feed reconnecting to a node that now serves another ledger switches the demo off', async () => {
    const validator = await startFakeValidator({ genesisHash: LOCAL_GENESIS_HASH });
    const rpcEndpoints = createRpcEndpoints([endpointOf(validator)]);
    const log = captureLog();
    const guard = createDemoGuard({ endpoints: [endpointOf(validator)], readGenesisHash, log });
    await guard.verifyAtStart();
    const unwatch = watchDemoLedger(rpcEndpoints, guard);
    const stop = new AbortController();
    let connections = 0;
    const feed = runLogSubscription(
      { rpcEndpoints, programId: validator.programId as Address, logger: createLogger({ level: 'silent' }) },
      { onConnected: () => (connections += 1), onSignature: () => {}, onDisconnected: () => {} },
      stop.signal,
    );
    try {
      await waitFor(() => connections === 1, { message: 'the feed up' });
      await guard.assertServing();
      validator.setGenesisHash(OTHER_LOCAL_GENESIS);
      validator.dropSockets();
      await waitFor(() => guard.offReason() !== null, { message: 'the demo switched off' });
      assert.match(guard.offReason()!, /now serves another ledger \(genesis hash 4sGj\w+, was 9j5J\w+\)/);
      assert.ok(log.lines.some((l) => l.startsWith('DEMO_MODE SWITCHED OFF: the RPC at 127.0.0.1:')));
      await assert.rejects(guard.assertServing(), { code: 'SERVICE_UNAVAILABLE' });
    } finally {
      stop.abort();
      unwatch();
      await feed;
      await validator.close();
    }
  });
});
