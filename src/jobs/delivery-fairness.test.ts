import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createInFlightLedger, defaultCaps } from './delivery-fairness.js';

describe('fair shares', () => {
  test('64 slots: half per owner and subscription, 2 per wallet without a vault, 8 for all of them', () => {
    assert.deepEqual(defaultCaps(64), {
      perSubscription: 32,
      perOwner: 32,
      perWalletWithoutVault: 2,
      withoutVault: 8,
    });
    assert.deepEqual(defaultCaps(2), {
      perSubscription: 1,
      perOwner: 1,
      perWalletWithoutVault: 1,
      withoutVault: 1,
    });
  });

  test('a wallet without a vault is full at its small cap; an owner is not', () => {
    const ledger = createInFlightLedger(defaultCaps(64));
    const throwaway = { webhookId: 'a', owner: 'T', ownsVault: false };
    const owner = { webhookId: 'b', owner: 'O', ownsVault: true };
    ledger.add(throwaway);
    ledger.add(throwaway);
    ledger.add(owner);
    ledger.add(owner);
    const held = ledger.held();
    assert.equal(held.withoutVault, 2);
    assert.deepEqual(
      held.owners.sort((x, y) => x.owner.localeCompare(y.owner)),
      [
        { owner: 'O', n: 2, full: false },
        { owner: 'T', n: 2, full: true },
      ],
    );
  });

  test('the pool of wallets without a vault asks for a claim when it is back at half', () => {
    const ledger = createInFlightLedger(defaultCaps(64));
    const deliveries = Array.from({ length: 8 }, (_, i) => ({
      webhookId: `w${i}`,
      owner: `T${i}`,
      ownsVault: false,
    }));
    for (const d of deliveries) ledger.add(d);
    assert.equal(ledger.held().withoutVault, 8);
    // Each wallet holds 1 of its 2: only the pool was capped, and it refills at 4.
    const refills = deliveries.slice(0, 4).map((d) => ledger.release(d));
    assert.deepEqual(refills, [false, false, false, true]);
    assert.equal(ledger.held().withoutVault, 4);
  });
});
