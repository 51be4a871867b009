// An agent's view of the approval its blocked transfer asked for, by the transfer's signature, read now
// or held until the owner decides. Waiting requests share one read per interval (however many there
// are, across vaults): the read sees every decision whichever process made it, on chain (approve,
// execute, ingested by any process) or off chain (reject), and the expiry by the time.
import { eq, inArray } from 'drizzle-orm';
import type { Clock } from '../../lib/clock.js';
import type { Database } from '../../storage/database.js';
import { overrides } from '../../storage/schema/overrides.js';
import { transactions } from '../../storage/schema/transactions.js';
import { vaults } from '../../storage/schema/vaults.js';
import { overrideRecordColumns } from '../overrides/override-reads.js';
import { toOverrideResource } from '../overrides/override-resource.js';
import { getVaultRow } from '../vaults/vault-reads.js';
import { type Approval, isSettled, toApproval } from './approval-resource.js';

export interface ApprovalServiceDeps {
  readonly db: Database;
  readonly clock: Clock;
  readonly publicBaseUrl: string;
  /** How often waiting requests are read again (default 250 ms, the live feed's cadence). */
  readonly intervalMs?: number;
}

export interface ApprovalRead {
  approval: Approval;
  /** The service has seen the transfer (a blocked transfer without a request then stays `none`). */
  known: boolean;
}

interface Waiter {
  vault: string;
  signature: string;
  latest: ApprovalRead;
  finish(read: ApprovalRead): void;
}

const { vaultAddress: _vaultAddress, ...overrideColumns } = overrideRecordColumns;

/** The transfers these signatures name, each with its override, in one query. */
async function readMany(db: Database, signatures: readonly string[]) {
  return db
    .select({
      signature: transactions.signature,
      vault: vaults.address,
      destination: transactions.destination,
      amount: transactions.amount,
      eventIndex: transactions.eventIndex,
      override: overrideColumns,
    })
    .from(transactions)
    .innerJoin(vaults, eq(vaults.id, transactions.vaultId))
    .leftJoin(overrides, eq(overrides.id, transactions.overrideId))
    .where(inArray(transactions.signature, [...signatures]));
}

type Row = Awaited<ReturnType<typeof readMany>>[number];

/** The approval of one vault's transfer among the rows read: the transfer with a request first. */
function approvalOf(
  rows: readonly Row[],
  at: { vault: string; signature: string },
  context: { publicBaseUrl: string; now: Date },
): ApprovalRead {
  const mine = rows
    .filter((r) => r.signature === at.signature && r.vault === at.vault)
    .sort(
      (a, b) =>
        Number(a.override === null) - Number(b.override === null) ||
        (a.eventIndex ?? 0) - (b.eventIndex ?? 0),
    );
  const row = mine[0];
  if (row === undefined) return { approval: toApproval(null, null), known: false };
  const transfer = { destination: row.destination, amount: row.amount.toString() };
  const override =
    row.override === null ? null : toOverrideResource({ ...row.override, vaultAddress: row.vault }, context);
  return { approval: toApproval(override, transfer), known: true };
}

export function createApprovalService(deps: ApprovalServiceDeps) {
  const { db, clock, publicBaseUrl } = deps;
  const intervalMs = deps.intervalMs ?? 250;
  const waiters = new Set<Waiter>();
  let timer: NodeJS.Timeout | null = null;

  async function tick(): Promise<void> {
    timer = null;
    const watching = [...waiters];
    if (watching.length === 0) return;
    try {
      const rows = await readMany(db, [...new Set(watching.map((w) => w.signature))]);
      for (const waiter of watching) {
        const read = approvalOf(rows, waiter, { publicBaseUrl, now: clock.now() });
        waiter.latest = read;
        if (isSettled(read.approval, read.known)) waiter.finish(read);
      }
    } catch {
      // A failed read (the database restarting) is tried again at the next tick; waiters keep their last answer.
    }
    schedule();
  }

  function schedule(): void {
    if (timer !== null || waiters.size === 0) return;
    timer = setTimeout(() => void tick(), intervalMs);
    timer.unref();
  }

  /** Holds until the approval settles, `timeoutMs` passes or `signal` aborts; answers the latest read. */
  function hold(
    vault: string,
    signature: string,
    first: ApprovalRead,
    timeoutMs: number,
    signal?: AbortSignal,
  ) {
    return new Promise<ApprovalRead>((resolve) => {
      const waiter: Waiter = {
        vault,
        signature,
        latest: first,
        finish(read) {
          if (!waiters.delete(waiter)) return;
          clearTimeout(deadline);
          signal?.removeEventListener('abort', onAbort);
          resolve(read);
        },
      };
      const onAbort = () => waiter.finish(waiter.latest);
      const deadline = setTimeout(onAbort, timeoutMs);
      waiters.add(waiter);
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) onAbort();
      schedule();
    });
  }

  return {
    /**
     * The approval of the vault's transfer with this signature (VAULT_NOT_FOUND for an unknown vault);
     * with `waitMs`, answered once it is no longer pending (or the transfer is seen without a request),
     * or when waitMs passes with the latest state.
     */
    async getApproval(
      vaultIdOrAddress: string,
      signature: string,
      options: { waitMs?: number; signal?: AbortSignal } = {},
    ): Promise<ApprovalRead> {
      const vault = (await getVaultRow(db, vaultIdOrAddress)).address;
      const first = approvalOf(
        await readMany(db, [signature]),
        { vault, signature },
        { publicBaseUrl, now: clock.now() },
      );
      const waitMs = options.waitMs ?? 0;
      if (waitMs <= 0 || isSettled(first.approval, first.known)) return first;
      return hold(vault, signature, first, waitMs, options.signal);
    },
    /** Requests held now. */
    waiting: () => waiters.size,
    /** Answers every held request with what it last read. */
    close(): void {
      for (const waiter of [...waiters]) waiter.finish(waiter.latest);
      if (timer !== null) clearTimeout(timer);
      timer = null;
    },
  };
}

export type ApprovalService = ReturnType<typeof createApprovalService>;
