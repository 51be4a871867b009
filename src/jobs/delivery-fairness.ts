// Fair shares of a worker's send slots: caps per subscription and per owner on deliveries in flight,
// so one owner's hanging receivers hold at most part of the slots and everyone else keeps being served.
// An owner's share grows with what its vaults are worth (age, executed transfers): a vault is one
// cheap account on chain, so owning one earns little. A wallet that owns no vault gets a small share,
// and all such wallets together a small pool. Receivers that keep timing out go to a slow lane with
// its own few slots (receiver-health.ts), so they hold none of the worker's slots.

/** Owner worth levels, from the owner's vaults: -1 owns no indexed vault, 0 new and idle … 3 established. */
export const WORTH_LEVELS = [0, 1, 2, 3] as const;

/** A level reached by the oldest vault's age in days, or by the vaults' executed transfers together. */
export const WORTH_THRESHOLDS = {
  ageDays: [1, 7, 30],
  executedTransfers: [10, 100, 1_000],
} as const;

export interface FairShareCaps {
  /** Deliveries of one subscription in flight in this worker. */
  perSubscription: number;
  /** Deliveries of one owner of an indexed vault in flight, by worth level 0…3. */
  perOwnerByLevel: readonly number[];
  /** Deliveries of one wallet that owns no indexed vault in flight in this worker. */
  perWalletWithoutVault: number;
  /** Deliveries of all wallets that own no indexed vault together, in flight in this worker. */
  withoutVault: number;
  /** Slow-lane sends in flight (on top of the worker's slots); one per slow receiver at a time. */
  slowLane: number;
}

/**
 * Defaults from the worker's slot count: half per subscription (one receiver gets no more connections
 * than that anyway); an owner 1/16 of the slots at worth level 0, doubling per level up to half at 3;
 * a wallet without a vault 1/32, and all such wallets 1/8 together; the slow lane 1/8 more.
 */
export function defaultCaps(concurrency: number): FairShareCaps {
  const share = (divisor: number) => Math.max(1, Math.floor(concurrency / divisor));
  return {
    perSubscription: share(2),
    perOwnerByLevel: WORTH_LEVELS.map((level) => Math.min(share(2), share(16) * 2 ** level)),
    perWalletWithoutVault: share(32),
    withoutVault: share(8),
    slowLane: share(8),
  };
}

/** An owner's cap at its worth level (-1: owns no indexed vault). */
export function ownerCap(caps: FairShareCaps, level: number): number {
  if (level < 0) return caps.perWalletWithoutVault;
  const top = caps.perOwnerByLevel.length - 1;
  return caps.perOwnerByLevel[Math.min(level, top)]!;
}

/** The worth level of an owner's vaults: the higher of what their age and their activity reach. */
export function worthLevel(vaults: { oldestAgeDays: number; executedTransfers: number } | null): number {
  if (vaults === null) return -1;
  const reached = (value: number, steps: readonly number[]) => steps.filter((s) => value >= s).length;
  return Math.max(
    reached(vaults.oldestAgeDays, WORTH_THRESHOLDS.ageDays),
    reached(vaults.executedTransfers, WORTH_THRESHOLDS.executedTransfers),
  );
}

/** What the claim needs to know: who holds slots now, and how many. */
export interface HeldSlots {
  subscriptions: { id: string; n: number }[];
  /** `full`: the owner holds its cap (which depends on its worth). */
  owners: { owner: string; n: number; full: boolean }[];
  /** Slots held by wallets that own no vault, together. */
  withoutVault: number;
  /** Sends in the worker's slots (the slow lane's are not among them). */
  fast: number;
  /** Receivers with a slow-lane send in flight. */
  slowReceivers: string[];
}

/** A delivery in flight, as the ledger counts it. */
export interface HeldDelivery {
  webhookId: string;
  owner: string;
  /** The owner's cap when it was claimed (from its worth then). */
  ownerCap: number;
  /** Whether its owner owned an indexed vault when it was claimed. */
  ownsVault: boolean;
  /** The receiver it goes to (owner and URL origin). */
  receiver: string;
  lane: 'fast' | 'slow';
}

export interface InFlightLedger {
  add(delivery: HeldDelivery): void;
  /** True when a subscription, owner or the pool that had reached its cap is back at half of it: claim again. */
  release(delivery: HeldDelivery): boolean;
  held(): HeldSlots;
}

const POOL_KEY = 'pool';
const FAST_KEY = 'fast';

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
      [`o:${d.owner}`, d.ownerCap],
    ];
    if (!d.ownsVault) keys.push([POOL_KEY, caps.withoutVault]);
    if (d.lane === 'fast') keys.push([FAST_KEY, Number.POSITIVE_INFINITY]);
    else keys.push([`r:${d.receiver}`, 1]);
    return keys;
  };
  return {
    add(delivery) {
      for (const [key, cap] of keysOf(delivery)) if (change(key, 1) >= cap) capped.add(key);
      ownerCaps.set(delivery.owner, delivery.ownerCap);
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
      const held: HeldSlots = {
        subscriptions: [],
        owners: [],
        withoutVault: counts.get(POOL_KEY) ?? 0,
        fast: counts.get(FAST_KEY) ?? 0,
        slowReceivers: [],
      };
      for (const [key, n] of counts) {
        if (key.startsWith('s:')) held.subscriptions.push({ id: key.slice(2), n });
        else if (key.startsWith('r:')) held.slowReceivers.push(key.slice(2));
        else if (key.startsWith('o:')) {
          const owner = key.slice(2);
          held.owners.push({ owner, n, full: n >= (ownerCaps.get(owner) ?? 1) });
        }
      }
      return held;
    },
  };
}
