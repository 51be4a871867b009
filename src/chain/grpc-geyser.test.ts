import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { getBase58Encoder } from '@solana/kit';
import type { SubscribeUpdate } from '@triton-one/yellowstone-grpc';
import { buildPingRequest, buildSubscribeRequest, readGeyserUpdate } from './grpc-geyser.js';
import { isReplayRefusal } from './grpc-stream.js';

const PROGRAM = 'Vau1t11111111111111111111111111111111111111';
const SIGNATURE = '5VERv8NMvzbJMEkV8xnrLkEaWRtSz9CosKDYjCJjBRnbJLgp8uirBgmQpjKhoR4tjF3ZpRzrFmBV6UjKdiSZkQUW';

const update = (fields: Partial<SubscribeUpdate>): SubscribeUpdate => ({
  filters: [],
  createdAt: undefined,
  ...fields,
});

describe('the Yellowstone wire', () => {
  test('the subscribe request asks for the program, failed included, no votes, block metas and slots, at confirmed', () => {
    const request = buildSubscribeRequest(PROGRAM, null);
    assert.deepEqual(request.transactions.vault, {
      accountInclude: [PROGRAM],
      accountExclude: [],
      accountRequired: [],
      vote: false,
      failed: true,
    });
    assert.equal(Object.keys(request.blocksMeta).length, 1);
    assert.equal(Object.keys(request.slots).length, 1);
    assert.equal(request.commitment, 1);
    assert.equal(request.fromSlot, undefined);
    assert.equal(buildSubscribeRequest(PROGRAM, 42).fromSlot, '42');
    assert.deepEqual(buildPingRequest(7).ping, { id: 7 });
    assert.deepEqual(buildPingRequest(7).transactions, {});
  });

  test('a failed transaction update reads as the fields getTransaction gives, logs included', () => {
    const logs = ['Program x invoke [1]', 'Program x success'];
    const read = readGeyserUpdate(
      update({
        transaction: {
          slot: '300',
          transaction: {
            signature: new Uint8Array(getBase58Encoder().encode(SIGNATURE)),
            isVote: false,
            index: '0',
            transaction: undefined,
            meta: {
              err: { err: new Uint8Array([8, 0, 0, 0]) },
              fee: '5000',
              preBalances: [],
              postBalances: [],
              innerInstructions: [],
              innerInstructionsNone: false,
              logMessages: logs,
              logMessagesNone: false,
              preTokenBalances: [],
              postTokenBalances: [],
              rewards: [],
              loadedWritableAddresses: [],
              loadedReadonlyAddresses: [],
              returnData: undefined,
              returnDataNone: true,
            },
          },
        },
      }),
    );
    assert.equal(read.kind, 'transaction');
    if (read.kind !== 'transaction') return;
    assert.equal(read.view.signature, SIGNATURE);
    assert.equal(read.view.slot, 300);
    assert.notEqual(read.view.err, null);
    assert.deepEqual(read.view.logMessages, logs);
  });

  test('block metas give block times; slot statuses name confirmed, finalized and dead', () => {
    const meta = readGeyserUpdate(
      update({
        blockMeta: {
          slot: '9',
          blockhash: '',
          rewards: undefined,
          blockTime: { timestamp: '1700000000' },
          blockHeight: undefined,
          parentSlot: '8',
          parentBlockhash: '',
          executedTransactionCount: '0',
          entriesCount: '0',
        },
      }),
    );
    assert.deepEqual(meta, { kind: 'blockMeta', slot: 9, blockTime: 1_700_000_000 });
    const status = (n: number) => readGeyserUpdate(update({ slot: { slot: '5', status: n } }));
    assert.deepEqual(status(2), { kind: 'slot', slot: 5, status: 'finalized' });
    assert.deepEqual(status(6), { kind: 'slot', slot: 5, status: 'dead' });
    assert.deepEqual(status(0), { kind: 'slot', slot: 5, status: null });
    assert.deepEqual(readGeyserUpdate(update({ ping: {} })), { kind: 'ping' });
  });

  test('a refused fromSlot is told apart from an unreachable server', () => {
    assert.equal(
      isReplayRefusal(new Error('status: InvalidArgument, message: "fromSlot 5 is not available"')),
      true,
    );
    assert.equal(isReplayRefusal(new Error('transport error: connection refused')), false);
    const wrapped = new Error('failed to open subscribe stream', {
      cause: new Error(
        'gRPC status: code: \'Client specified an invalid argument\', message: "fromSlot 5 is not available"',
      ),
    });
    assert.equal(isReplayRefusal(wrapped), true, 'the server status travels in the cause');
    assert.equal(isReplayRefusal(new Error('status: Unavailable, message: "fake gRPC: outage"')), false);
  });
});
