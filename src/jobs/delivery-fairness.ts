// Fair shares of a worker's send slots: caps per subscription and per owner on deliveries in flight,
// so one owner's hanging receivers hold at most part of the slots and everyone else keeps being served.
// A wallet that owns no vault costs nothing to make: such wallets get a small share each, and all of
// them together a small pool, so they cannot take the slots of owners whose vaults are indexed.

export interface FairShareCaps {
  /** Deliveries of one subscription in flight in this worker. */
  perSubscription: number;
  /** Deliveries of one owner of an indexed vault in flight in this worker. */
  perOwner: number;
  /** Deliveries of one wallet that owns no indexed vault in flight in this worker. */
  perWalletWithoutVault: number;
  /** Deliveries of all wallets that own no indexed vault together, in flight in this worker. */
  withoutVault: number;
}

/**
 * Defaults from the worker's slot count: half of them per owner, and per subscription too (one
 * receiver gets no more connections than that anyway); a wallet without a vault 1/32 of them, and
 * all such wallets 1/8 together, so owners always keep 7/8. Claims refill a capped key at half its
 * cap, so a fast single subscription still moves in batches of a quarter of the slots.
 */
export function defaultCaps(concurrency: number): FairShareCaps {
  const share = (divisor: number) => Math.max(1, Math.floor(concurrency / divisor));
  return {
    perSubscription: share(2),
    perOwner: share(2),
    perWalletWithoutVault: share(32),
    withoutVault: share(8),
  };
}

/** What the claim needs to know: who holds slots now, and how many. */
export interface HeldSlots {
  subscriptions: { id: string; n: number }[];
  /** `full`: the owner holds its cap (which depends on whether it owns a vault). */
  owners: { owner: string; n: number; full: boolean }[];
  /** Slots held by wallets that own no vault, together. */
  withoutVault: number;
}

/** A delivery in flight, as the ledger counts it. */
export interface HeldDelivery {
  webhookId: string;
  owner: string;
  /** Whether its owner owned an indexed vault when it was claimed. */
  ownsVault: boolean;
}

export interface InFlightLedger {
  add(delivery: HeldDelivery): void;
  /** True when a subscription, owner or the pool that had reached its cap is back at half of it: claim again. */
  release(delivery: HeldDelivery): boolean;
  held(): HeldSlots;
}

const POOL_KEY = 'pool';

export function createInFlightLedger(caps: FairShareCaps): InFlightLedger {
  const counts = new Map<string, number>();
  const change = (key: string, delta: number): number => {
    const next = (counts.get(key) ?? 0) + delta;
    if (next <= 0) counts.delete(key);
    else counts.set(key, next);
    return next;
  };
  // Keys that reached their cap, so the claim skipped whatever else they have due. Only such a key
  // coming back to half its cap is worth a claim: claims happen in batches, not per finished send.
  const capped = new Set<string>();
  const ownerCaps = new Map<string, number>();
  const keysOf = (d: HeldDelivery): [string, number][] => {
    const keys: [string, number][] = [
      [`s:${d.webhookId}`, caps.perSubscription],
      [`o:${d.owner}`, d.ownsVault ? caps.perOwner : caps.perWalletWithoutVault],
    ];
    if (!d.ownsVault) keys.push([POOL_KEY, caps.withoutVault]);
    return keys;
  };
  return {
    add(delivery) {
      for (const [key, cap] of keysOf(delivery)) if (change(key, 1) >= cap) capped.add(key);
      ownerCaps.set(delivery.owner, keysOf(delivery)[1]![1]);
    },
    release(delivery) {
      let refilled = false;
      for (const [key, cap] of keysOf(delivery)) {
        const count = change(key, -1);
        if (count === 0 && key.startsWith('o:')) ownerCaps.delete(delivery.owner);
        if (capped.has(key) && count <= Math.floor(cap / 2)) {
          capped.delete(key);
          refilled = true;
        }
      }
      return refilled;
    },
    held() {
      const subscriptions: HeldSlots['subscriptions'] = [];
      const owners: HeldSlots['owners'] = [];
      for (const [key, n] of counts) {
        if (key.startsWith('s:')) subscriptions.push({ id: key.slice(2), n });
        else if (key.startsWith('o:')) {
          const owner = key.slice(2);
          owners.push({ owner, n, full: n >= (ownerCaps.get(owner) ?? caps.perOwner) });
        }
      }
      return { subscriptions, owners, withoutVault: counts.get(POOL_KEY) ?? 0 };
    },
  };
}
