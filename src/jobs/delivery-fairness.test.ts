import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  createInFlightLedger,
  defaultCaps,
  type HeldDelivery,
  ownerCap,
  worthLevel,
} from './delivery-fairness.js';
import { createReceiverHealth, SLOW_AFTER } from './receiver-health.js';

const held = (over: Partial<HeldDelivery> & Pick<HeldDelivery, 'webhookId' | 'owner'>): HeldDelivery => ({
  ownerCap: 4,
  ownsVault: true,
  receiver: `${over.owner} http://r`,
  lane: 'fast',
  ...over,
});

describe('fair shares', () => {
  test('64 slots: half per subscription; an owner 4 at worth 0 doubling to 32; 2 per wallet without a vault, 8 for all of them; 8 more for the slow lane', () => {
    assert.deepEqual(defaultCaps(64), {
      perSubscription: 32,
      perOwnerByLevel: [4, 8, 16, 32],
      perWalletWithoutVault: 2,
      withoutVault: 8,
      slowLane: 8,
    });
    assert.deepEqual(defaultCaps(2), {
      perSubscription: 1,
      perOwnerByLevel: [1, 1, 1, 1],
      perWalletWithoutVault: 1,
      withoutVault: 1,
      slowLane: 1,
    });
  });

  test('an owner cap by worth level: none for -1 is the wallet-without-vault cap, past the top level the top cap', () => {
    const caps = defaultCaps(64);
    assert.deepEqual(
      [-1, 0, 1, 2, 3, 7].map((level) => ownerCap(caps, level)),
      [2, 4, 8, 16, 32, 32],
    );
  });

  test('worth grows with the oldest vault age or with executed transfers, whichever reaches further', () => {
    const level = (oldestAgeDays: number, executedTransfers: number) =>
      worthLevel({ oldestAgeDays, executedTransfers });
    assert.equal(worthLevel(null), -1);
    assert.deepEqual(
      [level(0, 0), level(0.99, 9), level(1, 0), level(7, 0), level(30, 0), level(400, 0)],
      [0, 0, 1, 2, 3, 3],
    );
    assert.deepEqual([level(0, 10), level(0, 100), level(0, 1_000), level(8, 10)], [1, 2, 3, 2]);
  });

  test('two new vault owners with hanging receivers hold 8 of 64 slots; the real owner is never full', () => {
    const caps = defaultCaps(64);
    const ledger = createInFlightLedger(caps);
    for (const owner of ['A', 'B']) {
      for (let i = 0; i < ownerCap(caps, 0); i += 1) ledger.add(held({ webhookId: `${owner}${i}`, owner }));
    }
    ledger.add(held({ webhookId: 'real', owner: 'O' }));
    const now = ledger.held();
    assert.equal(now.fast, 9);
    assert.deepEqual(
      now.owners.map((o) => [o.owner, o.n, o.full]),
      [
        ['A', 4, true],
        ['B', 4, true],
        ['O', 1, false],
      ],
    );
  });

  test('a wallet without a vault is full at its small cap; an owner is not', () => {
    const ledger = createInFlightLedger(defaultCaps(64));
    const throwaway = held({ webhookId: 'a', owner: 'T', ownsVault: false, ownerCap: 2 });
    const owner = held({ webhookId: 'b', owner: 'O', ownerCap: 32 });
    for (const d of [throwaway, throwaway, owner, owner]) ledger.add(d);
    const now = ledger.held();
    assert.equal(now.withoutVault, 2);
    assert.deepEqual(
      now.owners.sort((x, y) => x.owner.localeCompare(y.owner)),
      [
        { owner: 'O', n: 2, full: false },
        { owner: 'T', n: 2, full: true },
      ],
    );
  });

  test('the pool of wallets without a vault asks for a claim when it is back at half', () => {
    const ledger = createInFlightLedger(defaultCaps(64));
    const deliveries = Array.from({ length: 8 }, (_, i) =>
      held({ webhookId: `w${i}`, owner: `T${i}`, ownsVault: false, ownerCap: 2 }),
    );
    for (const d of deliveries) ledger.add(d);
    assert.equal(ledger.held().withoutVault, 8);
    // Each wallet holds 1 of its 2: only the pool was capped, and it refills at 4.
    const refills = deliveries.slice(0, 4).map((d) => ledger.release(d));
    assert.deepEqual(refills, [false, false, false, true]);
    assert.equal(ledger.held().withoutVault, 4);
  });

  test("slow-lane sends are not in the worker's slots; their receivers are busy until released", () => {
    const ledger = createInFlightLedger(defaultCaps(64));
    const slow = held({ webhookId: 's', owner: 'A', lane: 'slow', receiver: 'A http://dead' });
    ledger.add(slow);
    ledger.add(held({ webhookId: 'f', owner: 'O' }));
    assert.equal(ledger.held().fast, 1);
    assert.deepEqual(ledger.held().slowReceivers, ['A http://dead']);
    // The receiver's one slow-lane send was its cap: finishing it asks for the next claim.
    assert.equal(ledger.release(slow), true);
    assert.deepEqual(ledger.held().slowReceivers, []);
    assert.equal(
      ledger.held().owners.find((o) => o.owner === 'A'),
      undefined,
    );
  });
});

describe('the slow lane', () => {
  test(`a receiver is shed after ${SLOW_AFTER} timeouts in a row, not before, and only that receiver`, () => {
    const health = createReceiverHealth();
    const lanes: string[] = [];
    for (let i = 0; i < SLOW_AFTER; i += 1) {
      lanes.push(health.lane('A http://dead'));
      health.note('A http://dead', true);
    }
    assert.deepEqual(lanes, ['fast', 'fast', 'fast']);
    assert.equal(health.lane('A http://dead'), 'slow');
    assert.equal(health.lane('B http://dead'), 'fast');
    assert.deepEqual(health.slow(), ['A http://dead']);
  });

  test('an answer between timeouts takes a strike away, so a receiver that mostly answers stays', () => {
    const health = createReceiverHealth();
    const changed = [true, false, true, false, true, true].map((timedOut) => health.note('r', timedOut));
    // Strikes 1, 0, 1, 0, 1, 2: never three.
    assert.deepEqual(changed, [false, false, false, false, false, false]);
    assert.equal(health.lane('r'), 'fast');
    assert.equal(health.note('r', true), true);
    assert.equal(health.lane('r'), 'slow');
  });

  test(`back in the fast lane only after ${SLOW_AFTER} answers; a timeout meanwhile keeps it slow`, () => {
    const health = createReceiverHealth();
    for (let i = 0; i < 5; i += 1) health.note('r', true);
    const steps = [false, false, true, false, false, false].map((timedOut) => {
      health.note('r', timedOut);
      return health.lane('r');
    });
    assert.deepEqual(steps, ['slow', 'slow', 'slow', 'slow', 'fast', 'fast']);
    assert.deepEqual(health.slow(), []);
  });

  test('past its bound it forgets the receiver heard from least recently', () => {
    const health = createReceiverHealth({ maxReceivers: 2 });
    for (const r of ['a', 'b', 'a', 'c']) for (let i = 0; i < SLOW_AFTER; i += 1) health.note(r, true);
    assert.deepEqual(health.slow().sort(), ['a', 'c']);
    assert.equal(health.lane('b'), 'fast');
  });

  test('an owner is trusted after an answer, and not while any receiver of it has a timeout against it', () => {
    const health = createReceiverHealth();
    assert.deepEqual(health.trusted(), []);
    health.note('O http://good', false);
    assert.deepEqual(health.trusted(), ['O']);
    // A hanging second receiver takes the trust away until it answers again.
    health.note('O http://dead', true);
    health.note('O http://good', false);
    assert.deepEqual(health.trusted(), []);
    health.note('O http://dead', false);
    assert.deepEqual(health.trusted(), ['O']);
    // A wallet that never got an answer is never trusted.
    health.note('A http://dead', true);
    assert.deepEqual(health.trusted(), ['O']);
  });
});
