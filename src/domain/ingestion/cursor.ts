// The ingestion cursor (newest signature below which every program signature is applied), the
// applied-signature look-up that makes re-application a no-op, and the ingestor's heartbeat.
import { eq, inArray, sql } from 'drizzle-orm';
import type { Queryable } from '../../storage/database.js';
import { chainCursors, chainHeartbeats, chainSignatures } from '../../storage/schema/index.js';

export interface Cursor {
  /** Null: history is complete from its very beginning up to nothing yet (an empty program). */
  signature: string | null;
  slot: number | null;
}

export const cursorName = (programId: string) => `program:${programId}`;
export const HEARTBEAT_NAME = 'ingestor';

/** The stored cursor, or null before the first start finished choosing where history begins. */
export async function getCursor(db: Queryable, name: string): Promise<Cursor | null> {
  const [row] = await db
    .select({ signature: chainCursors.signature, slot: chainCursors.slot })
    .from(chainCursors)
    .where(eq(chainCursors.name, name));
  return row ?? null;
}

export async function setCursor(db: Queryable, name: string, cursor: Cursor): Promise<void> {
  await db
    .insert(chainCursors)
    .values({ name, ...cursor, updatedAt: new Date() })
    .onConflictDoUpdate({
      target: chainCursors.name,
      set: { signature: cursor.signature, slot: cursor.slot, updatedAt: sql`now()` },
    });
}

/** The subset of these signatures already applied. */
export async function findAppliedSignatures(
  db: Queryable,
  signatures: readonly string[],
): Promise<Set<string>> {
  if (signatures.length === 0) return new Set();
  const rows = await db
    .select({ signature: chainSignatures.signature })
    .from(chainSignatures)
    .where(inArray(chainSignatures.signature, [...signatures]));
  return new Set(rows.map((r) => r.signature));
}

export interface Heartbeat {
  status: 'connected' | 'connecting' | 'disconnected';
  /** The live source in use (`grpc` or `websocket`); null when stopped. */
  source: 'grpc' | 'websocket' | null;
  instance: string;
  /** When the oldest signature known but not yet applied was first seen; null when caught up. */
  behindSince: Date | null;
}

/** Written by the active ingestor on a timer; times are the database's, so every process agrees. */
export async function writeHeartbeat(db: Queryable, beat: Heartbeat): Promise<void> {
  await db
    .insert(chainHeartbeats)
    .values({ name: HEARTBEAT_NAME, ...beat, beatAt: sql`now()` })
    .onConflictDoUpdate({
      target: chainHeartbeats.name,
      set: {
        status: beat.status,
        source: beat.source,
        instance: beat.instance,
        behindSince: beat.behindSince,
        beatAt: sql`now()`,
      },
    });
}
