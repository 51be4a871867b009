// Caps on work held open at once (event streams, RPC work of anonymous requests): per client, per
// network (the wider prefix one customer's clients share), and in all, with the last slots kept for
// networks that hold less than one client's share, so no network can fill the process on its own.

export interface SlotLimits {
  /** Slots one client key may hold. */
  readonly perClient: number;
  /** Slots one network key may hold (at least perClient). */
  readonly perNetwork: number;
  /** Slots of all clients together. */
  readonly total: number;
  /** The last `reserve` slots of `total` go only to networks holding fewer than perClient. */
  readonly reserve: number;
}

/** Which cap refused a slot. */
export type SlotRefusal = 'client' | 'network' | 'reserve' | 'total';

/** Whose slot it is: the client key (an address, an IPv6 /64) and its network key (an IPv4 /24, an IPv6 /48). */
export interface SlotHolder {
  readonly clientKey: string;
  readonly networkKey: string;
}

/** A network may hold a tenth of the total (never less than one client's share); the last tenth is the reserve. */
export function getSlotLimits(perClient: number, total: number): SlotLimits {
  return {
    perClient,
    perNetwork: Math.max(perClient, Math.ceil(total / 10)),
    total,
    reserve: Math.floor(total / 10),
  };
}

/** The limit a refusal names to the caller (the one it hit). */
export function refusalLimit(limits: SlotLimits, refusal: SlotRefusal): number {
  if (refusal === 'client') return limits.perClient;
  if (refusal === 'network') return limits.perNetwork;
  return refusal === 'reserve' ? limits.total - limits.reserve : limits.total;
}

export function createConcurrencySlots(limits: SlotLimits) {
  const byClient = new Map<string, number>();
  const byNetwork = new Map<string, number>();
  let open = 0;
  const add = (map: Map<string, number>, key: string, delta: number) => {
    const count = (map.get(key) ?? 0) + delta;
    if (count === 0) map.delete(key);
    else map.set(key, count);
  };
  return {
    /** Slots held now, all clients together. */
    open: () => open,
    /** Takes a slot: a release function (safe to call twice), or the cap that refused it. */
    acquire(holder: SlotHolder): (() => void) | SlotRefusal {
      const { clientKey, networkKey } = holder;
      if ((byClient.get(clientKey) ?? 0) >= limits.perClient) return 'client';
      const network = byNetwork.get(networkKey) ?? 0;
      if (network >= limits.perNetwork) return 'network';
      if (open >= limits.total) return 'total';
      if (open >= limits.total - limits.reserve && network >= limits.perClient) return 'reserve';
      add(byClient, clientKey, 1);
      add(byNetwork, networkKey, 1);
      open += 1;
      let released = false;
      return () => {
        if (released) return;
        released = true;
        open -= 1;
        add(byClient, clientKey, -1);
        add(byNetwork, networkKey, -1);
      };
    },
  };
}

export type ConcurrencySlots = ReturnType<typeof createConcurrencySlots>;
