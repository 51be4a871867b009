// Fair shares of a worker's send slots: a cap per subscription and per owner on deliveries in flight,
// so one owner's hanging receivers hold at most part of the slots and everyone else keeps being served.

export interface FairShareCaps {
  /** Deliveries of one subscription in flight in this worker. */
  perSubscription: number;
  /** Deliveries of one owner's subscriptions in flight in this worker. */
  perOwner: number;
}

/**
 * Defaults from the worker's slot count: half of them per owner, and per subscription too (one
 * receiver gets no more connections than that anyway). Claims refill a capped key at half its cap,
 * so a fast single subscription still moves in batches of a quarter of the slots.
 */
export function defaultCaps(concurrency: number): FairShareCaps {
  const half = Math.max(1, Math.floor(concurrency / 2));
  return { perSubscription: half, perOwner: half };
}

/** What the claim needs to know: who holds slots now, and how many. */
export interface HeldSlots {
  subscriptions: { id: string; n: number }[];
  owners: { owner: string; n: number }[];
}

export interface InFlightLedger {
  add(delivery: { webhookId: string; owner: string }): void;
  /** True when a subscription or owner that had reached its cap is back at half of it: claim again. */
  release(delivery: { webhookId: string; owner: string }): boolean;
  held(): HeldSlots;
}

export function createInFlightLedger(caps: FairShareCaps): InFlightLedger {
  const bySubscription = new Map<string, number>();
  const byOwner = new Map<string, number>();
  const change = (map: Map<string, number>, key: string, delta: number): number => {
    const next = (map.get(key) ?? 0) + delta;
    if (next <= 0) map.delete(key);
    else map.set(key, next);
    return next;
  };
  // Keys that reached their cap, so the claim skipped whatever else they have due. Only such a key
  // coming back to half its cap is worth a claim: claims happen in batches, not per finished send.
  const capped = new Set<string>();
  const track = (key: string, count: number, cap: number) => {
    if (count >= cap) capped.add(key);
  };
  const refilled = (key: string, count: number, cap: number) =>
    capped.has(key) && count <= Math.floor(cap / 2) && capped.delete(key);
  return {
    add(delivery) {
      track(`s:${delivery.webhookId}`, change(bySubscription, delivery.webhookId, 1), caps.perSubscription);
      track(`o:${delivery.owner}`, change(byOwner, delivery.owner, 1), caps.perOwner);
    },
    release(delivery) {
      const sub = change(bySubscription, delivery.webhookId, -1);
      const owner = change(byOwner, delivery.owner, -1);
      const subRefilled = refilled(`s:${delivery.webhookId}`, sub, caps.perSubscription);
      const ownerRefilled = refilled(`o:${delivery.owner}`, owner, caps.perOwner);
      return subRefilled || ownerRefilled;
    },
    held() {
      return {
        subscriptions: [...bySubscription].map(([id, n]) => ({ id, n })),
        owners: [...byOwner].map(([owner, n]) => ({ owner, n })),
      };
    },
  };
}
