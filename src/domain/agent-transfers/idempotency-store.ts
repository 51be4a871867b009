// Idempotency keys of relayed agent transfers, in the database so that every API process and a restart
// honour them: the first request of (agent, key) within 24 h claims it; later ones read what it stored.
import { and, eq, lt, sql } from 'drizzle-orm';
import type { Database } from '../../storage/database.js';
import { agentTransferRequests } from '../../storage/schema/agent-transfers.js';
import type { AgentTransferResult } from './agent-transfer-resource.js';

/** How long a key names its first request. */
export const IDEMPOTENCY_WINDOW_MS = 24 * 60 * 60 * 1000;

export type IdempotencyClaim =
  | { readonly claimed: true }
  | { readonly claimed: false; readonly signature: string; readonly result: AgentTransferResult | null };

export function createIdempotencyStore(db: Database) {
  return {
    /**
     * Claims (agent, key) for this signature, or answers what the key's first request holds. A key
     * older than the window is taken over as a new one.
     */
    async claim(input: {
      agent: string;
      key: string;
      vault: string;
      signature: string;
      now: Date;
    }): Promise<IdempotencyClaim> {
      const cutoff = new Date(input.now.getTime() - IDEMPOTENCY_WINDOW_MS);
      const row = {
        agent: input.agent,
        idempotencyKey: input.key,
        vault: input.vault,
        signature: input.signature,
        result: null,
        createdAt: input.now,
      };
      const taken = await db
        .insert(agentTransferRequests)
        .values(row)
        .onConflictDoUpdate({
          target: [agentTransferRequests.agent, agentTransferRequests.idempotencyKey],
          set: {
            vault: input.vault,
            signature: input.signature,
            result: sql`null`,
            createdAt: input.now,
          },
          setWhere: lt(agentTransferRequests.createdAt, cutoff),
        })
        .returning({ agent: agentTransferRequests.agent });
      if (taken.length > 0) return { claimed: true };
      const [first] = await db
        .select()
        .from(agentTransferRequests)
        .where(
          and(
            eq(agentTransferRequests.agent, input.agent),
            eq(agentTransferRequests.idempotencyKey, input.key),
          ),
        );
      if (first === undefined) return { claimed: true };
      return {
        claimed: false,
        signature: first.signature,
        result: (first.result ?? null) as AgentTransferResult | null,
      };
    },
    /** Gives the key up (the transaction could not be sent): a retry with it sends. */
    async release(agent: string, key: string): Promise<void> {
      await db
        .delete(agentTransferRequests)
        .where(and(eq(agentTransferRequests.agent, agent), eq(agentTransferRequests.idempotencyKey, key)));
    },
    /** Stores the outcome the key answers from now on. */
    async complete(agent: string, key: string, result: AgentTransferResult): Promise<void> {
      await db
        .update(agentTransferRequests)
        .set({ result })
        .where(and(eq(agentTransferRequests.agent, agent), eq(agentTransferRequests.idempotencyKey, key)));
    },
  };
}

export type IdempotencyStore = ReturnType<typeof createIdempotencyStore>;
