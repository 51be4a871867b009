import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createBlockchainIdSource, KNOWN_BLOCKCHAIN_IDS } from './blockchain-id.js';

const never = () => Promise.reject(new Error('must not be asked'));

test('public clusters answer their fixed CAIP-2 ids without asking the node', async () => {
  assert.equal(
    await createBlockchainIdSource({ cluster: 'devnet', getGenesisHash: never }).get(),
    'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
  );
  assert.equal(
    await createBlockchainIdSource({ cluster: 'mainnet-beta', getGenesisHash: never }).get(),
    'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
  );
  assert.equal(
    await createBlockchainIdSource({ cluster: 'testnet', getGenesisHash: never }).get(),
    'solana:4uhcVJyU9pJkvQyS88uRDiswHXSCkY3z',
  );
});

test('localnet reads its genesis hash once and keeps the first 32 characters', async () => {
  let calls = 0;
  const source = createBlockchainIdSource({
    cluster: 'localnet',
    getGenesisHash: async () => {
      calls += 1;
      return '4Qkev8aNZcqFNSRhQzwyLMFSsi94jHqE8WNVTJzTP99F';
    },
  });
  const ids = await Promise.all([source.get(), source.get()]);
  assert.deepEqual(ids, [
    'solana:4Qkev8aNZcqFNSRhQzwyLMFSsi94jHqE',
    'solana:4Qkev8aNZcqFNSRhQzwyLMFSsi94jHqE',
  ]);
  assert.equal(await source.get(), ids[0]);
  assert.equal(calls, 1);
});

test('localnet falls back to devnet while the node does not answer, and asks again a minute later', async () => {
  let now = 1_000_000;
  let up = false;
  let calls = 0;
  const source = createBlockchainIdSource({
    cluster: 'localnet',
    now: () => now,
    getGenesisHash: async () => {
      calls += 1;
      if (!up) throw new Error('connection refused');
      return 'GH7ome3EiwEr7tu9JuTh2dpYWBJK3z69Xm1ZE3MEE6JC';
    },
  });
  assert.equal(await source.get(), KNOWN_BLOCKCHAIN_IDS.devnet);
  up = true;
  assert.equal(await source.get(), KNOWN_BLOCKCHAIN_IDS.devnet, 'no new lookup inside the retry delay');
  assert.equal(calls, 1);
  now += 60_001;
  assert.equal(await source.get(), 'solana:GH7ome3EiwEr7tu9JuTh2dpYWBJK3z69');
  assert.equal(calls, 2);
});
