// Which receivers go to the slow lane: one that times out SLOW_AFTER times in a row is shed there,
// so its hanging sends hold none of the worker's slots; answers bring it back step by step. Kept in
// the worker's memory per receiver (owner and URL origin), so another owner's receiver at the same
// host is judged on its own, and a restarted worker learns again from the next few timeouts. An owner
// whose latest attempt was answered, and none of whose receivers has a timeout against it, is
// trusted: its share of slots is not held down by its vaults' worth (delivery-fairness.ts).

/** Timeouts in a row that shed a receiver to the slow lane. */
export const SLOW_AFTER = 3;
/** Receivers remembered; past this the one heard from least recently is forgotten (it starts over in the fast lane). */
const MAX_RECEIVERS = 10_000;

export type Lane = 'fast' | 'slow';

export interface ReceiverHealth {
  lane(receiver: string): Lane;
  /** Notes an attempt's outcome; true when the receiver changed lanes. */
  note(receiver: string, timedOut: boolean): boolean;
  /** Receivers in the slow lane now. */
  slow(): string[];
  /** Owners whose latest attempt here was answered and none of whose receivers has a strike. */
  trusted(): string[];
}

/** Owners remembered as answering; past this the one heard from least recently is forgotten. */
const MAX_TRUSTED = 1_000;

/** The owner part of a receiver (owner, a space, the URL origin). */
const ownerOf = (receiver: string): string => receiver.slice(0, receiver.indexOf(' '));

/**
 * Each timeout adds a strike, each answer (any status, or a failure other than a timeout) takes one
 * away; SLOW_AFTER strikes is the slow lane. A receiver that answers in the slow lane is back in the
 * fast lane only after SLOW_AFTER answers, so one that alternates cannot keep re-entering it at full
 * share. Strikes stop counting at SLOW_AFTER: a receiver that hung for days recovers as fast as one
 * that hung for a minute.
 */
export function createReceiverHealth(
  options: { slowAfter?: number; maxReceivers?: number } = {},
): ReceiverHealth {
  const slowAfter = options.slowAfter ?? SLOW_AFTER;
  const maxReceivers = options.maxReceivers ?? MAX_RECEIVERS;
  /** Receivers with strikes; `slow` from reaching slowAfter strikes until back at none. */
  const known = new Map<string, { strikes: number; slow: boolean }>();
  const trusted = new Set<string>();
  const laneOf = (state: { slow: boolean } | undefined): Lane => (state?.slow ? 'slow' : 'fast');
  return {
    lane: (receiver) => laneOf(known.get(receiver)),
    note(receiver, timedOut) {
      const before = known.get(receiver);
      const strikes = before?.strikes ?? 0;
      const after = timedOut ? Math.min(slowAfter, strikes + 1) : Math.max(0, strikes - 1);
      const state = { strikes: after, slow: after >= slowAfter || (after > 0 && before?.slow === true) };
      // Re-inserted so the map's order is least recently heard first.
      known.delete(receiver);
      if (after > 0) {
        known.set(receiver, state);
        if (known.size > maxReceivers) known.delete(known.keys().next().value!);
      }
      const owner = ownerOf(receiver);
      trusted.delete(owner);
      if (!timedOut) {
        trusted.add(owner);
        if (trusted.size > MAX_TRUSTED) trusted.delete(trusted.values().next().value!);
      }
      return laneOf(before) !== laneOf(state);
    },
    trusted() {
      const striking = new Set([...known.keys()].map(ownerOf));
      return [...trusted].filter((owner) => !striking.has(owner));
    },
    slow: () => [...known].filter(([, state]) => state.slow).map(([receiver]) => receiver),
  };
}
