// Keyset anchors of the transaction lists (docs/API.md, Pagination): the key (timestamp, id)
// of the last row before a list position, remembered from pages already read, so page N seeks from
// the nearest anchor instead of skipping (N-1) × limit rows with OFFSET. An anchor holds only while
// the list is unchanged: each list remembers the vault counters (its stamp) its anchors were read
// under, and the query that uses an anchor checks them against the vault row it reads anyway.
// Counters only grow (a row is added, a pending transfer executes), so any change to a list's rows
// or order changes the stamp.
import { LRUCache } from 'lru-cache';

export interface Anchor {
  /** How many rows of the list come before the row after this key. */
  position: number;
  /** The key of the row at position - 1: its timestamp as PostgreSQL prints it (exact) and its id. */
  timestamp: string;
  id: string;
}

interface List {
  stamp: string;
  /** Ascending positions, each with its anchor. */
  positions: number[];
  anchors: Anchor[];
}

export interface PageAnchors {
  /** The anchor nearest before `position` (at most at it) and the stamp it holds under. */
  nearest(list: string, position: number): { anchor: Anchor; stamp: string } | undefined;
  /** Remembers an anchor read under `stamp`; a different stamp first forgets the list's anchors. */
  remember(list: string, stamp: string, anchor: Anchor): void;
  forget(list: string): void;
}

export function createPageAnchors(options: { maxLists?: number; maxAnchorsPerList?: number } = {}) {
  const maxAnchors = options.maxAnchorsPerList ?? 2_000;
  const lists = new LRUCache<string, List>({ max: options.maxLists ?? 20_000 });

  /** Index of the last position ≤ target, or -1. */
  const floorIndex = (positions: number[], target: number) => {
    let low = 0;
    let high = positions.length - 1;
    let found = -1;
    while (low <= high) {
      const middle = (low + high) >> 1;
      if (positions[middle]! <= target) {
        found = middle;
        low = middle + 1;
      } else {
        high = middle - 1;
      }
    }
    return found;
  };

  return {
    nearest(list, position) {
      const entry = lists.get(list);
      if (entry === undefined) return undefined;
      const at = floorIndex(entry.positions, position);
      return at < 0 ? undefined : { anchor: entry.anchors[at]!, stamp: entry.stamp };
    },

    remember(list, stamp, anchor) {
      if (anchor.position <= 0) return;
      let entry = lists.get(list);
      if (entry === undefined || entry.stamp !== stamp) {
        entry = { stamp, positions: [], anchors: [] };
        lists.set(list, entry);
      }
      const at = floorIndex(entry.positions, anchor.position);
      if (at >= 0 && entry.positions[at] === anchor.position) return;
      if (entry.positions.length >= maxAnchors) return;
      entry.positions.splice(at + 1, 0, anchor.position);
      entry.anchors.splice(at + 1, 0, anchor);
    },

    forget(list) {
      lists.delete(list);
    },
  } satisfies PageAnchors;
}
