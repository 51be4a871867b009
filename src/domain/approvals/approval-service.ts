// An agent's view of the approval of its blocked transfer (the owner's decision on its override), by the
// transfer's signature, read now or held until the owner decides. Only a pending override is held (a transfer that asked for none, or
// one the service has not seen, is answered at once), each held wait takes a slot of the wait cap
// (per client, per network, per process), and all held waits share one read per interval, however
// many there are and across vaults: the read sees every decision whichever process made it, on chain
// (approve, execute, ingested by any process) or off chain (reject), and the expiry by the time.
import { eq, inArray } from 'drizzle-orm';
import type { Clock } from '../../lib/clock.js';
import type { SlotHolder } from '../../lib/concurrency-slots.js';
import type { Database } from '../../storage/database.js';
import { overrides } from '../../storage/schema/overrides.js';
import { transactions } from '../../storage/schema/transactions.js';
import { vaults } from '../../storage/schema/vaults.js';
import type { ConcurrencyCap } from '../concurrency-caps.js';
import { overrideRecordColumns } from '../overrides/override-reads.js';
import { toOverrideResource } from '../overrides/override-resource.js';
import { getVaultRow } from '../vaults/vault-reads.js';
import { type Approval, isSettled, toApproval } from './approval-resource.js';

export interface ApprovalServiceDeps {
  readonly db: Database;
  readonly clock: Clock;
  readonly publicBaseUrl: string;
  /** Held waits at once, per client, per network and in all (src/domain/approvals/approval-waits.ts). */
  readonly waits: ConcurrencyCap;
  /** How often waiting requests are read again (default 250 ms, the live feed's cadence). */
  readonly intervalMs?: number;
}

/** The held waits on one vault's transfer: one answer serves them all. */
interface Watch {
  readonly vault: string;
  readonly signature: string;
  latest: Approval;
  readonly finishers: Set<(approval: Approval) => void>;
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

/** Who a wait is counted as when no request names it (a caller inside the process). */
const INTERNAL: SlotHolder = { clientKey: 'internal', networkKey: 'internal' };

const watchKey = (vault: string, signature: string) => `${vault}/${signature}`;

/** A row with a request before one without; then the first event of the transaction. */
const ranksBefore = (a: Row, b: Row) =>
  (Number(a.override === null) - Number(b.override === null) || (a.eventIndex ?? 0) - (b.eventIndex ?? 0)) <
  0;

/** The approval of one vault's transfer among its signature's rows: the transfer with a request first. */
function approvalOf(
  rows: readonly Row[],
  vault: string,
  context: { publicBaseUrl: string; now: Date },
): Approval {
  let row: Row | undefined;
  for (const r of rows) if (r.vault === vault && (row === undefined || ranksBefore(r, row))) row = r;
  if (row === undefined) return toApproval(null, null);
  const transfer = { destination: row.destination, amount: row.amount.toString() };
  const override =
    row.override === null ? null : toOverrideResource({ ...row.override, vaultAddress: row.vault }, context);
  return toApproval(override, transfer);
}

/** Rows by signature. */
function bySignature(rows: readonly Row[]): Map<string, Row[]> {
  const grouped = new Map<string, Row[]>();
  for (const row of rows) {
    if (row.signature === null) continue;
    const list = grouped.get(row.signature);
    if (list === undefined) grouped.set(row.signature, [row]);
    else list.push(row);
  }
  return grouped;
}

export function createApprovalService(deps: ApprovalServiceDeps) {
  const { db, clock, publicBaseUrl, waits } = deps;
  const intervalMs = deps.intervalMs ?? 250;
  const watches = new Map<string, Watch>();
  let held = 0;
  let timer: NodeJS.Timeout | null = null;

  async function tick(): Promise<void> {
    timer = null;
    if (watches.size === 0) return;
    try {
      const rows = bySignature(
        await readMany(db, [...new Set([...watches.values()].map((w) => w.signature))]),
      );
      const context = { publicBaseUrl, now: clock.now() };
      for (const watch of [...watches.values()]) {
        watch.latest = approvalOf(rows.get(watch.signature) ?? [], watch.vault, context);
        if (isSettled(watch.latest)) for (const finish of [...watch.finishers]) finish(watch.latest);
      }
    } catch {
      // A failed read (the database restarting) is tried again at the next tick; waits keep their last answer.
    }
    schedule();
  }

  function schedule(): void {
    if (timer !== null || watches.size === 0) return;
    timer = setTimeout(() => void tick(), intervalMs);
    timer.unref();
  }

  /** Holds until the approval settles, `timeoutMs` passes or `signal` aborts; answers the latest read. */
  function hold(vault: string, signature: string, first: Approval, timeoutMs: number, signal?: AbortSignal) {
    const key = watchKey(vault, signature);
    let watch = watches.get(key);
    if (watch === undefined) {
      watch = { vault, signature, latest: first, finishers: new Set() };
      watches.set(key, watch);
    }
    const mine = watch;
    return new Promise<Approval>((resolve) => {
      const finish = (approval: Approval) => {
        if (!mine.finishers.delete(finish)) return;
        held -= 1;
        if (mine.finishers.size === 0 && watches.get(key) === mine) watches.delete(key);
        clearTimeout(deadline);
        signal?.removeEventListener('abort', onAbort);
        resolve(approval);
      };
      const onAbort = () => finish(mine.latest);
      const deadline = setTimeout(onAbort, timeoutMs);
      mine.finishers.add(finish);
      held += 1;
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) onAbort();
      schedule();
    });
  }

  return {
    /**
     * The approval of the vault's transfer with this signature (VAULT_NOT_FOUND for an unknown vault);
     * with `waitMs`, a pending one is held until it is no longer pending, or until waitMs passes with
     * the latest state. A request with waitMs takes a slot of `holder`'s for as long as it lasts (read
     * included), else 429 / 503 before anything is read.
     */
    async getApproval(
      vaultIdOrAddress: string,
      signature: string,
      options: { waitMs?: number; signal?: AbortSignal; holder?: SlotHolder } = {},
    ): Promise<Approval> {
      const waitMs = options.waitMs ?? 0;
      const release = waitMs > 0 ? waits.acquire(options.holder ?? INTERNAL) : null;
      try {
        const vault = (await getVaultRow(db, vaultIdOrAddress)).address;
        const rows = await readMany(db, [signature]);
        const first = approvalOf(rows, vault, { publicBaseUrl, now: clock.now() });
        if (release === null || isSettled(first)) return first;
        return await hold(vault, signature, first, waitMs, options.signal);
      } finally {
        release?.();
      }
    },
    /** Requests held now. */
    waiting: () => held,
    /** Answers every held request with what it last read. */
    close(): void {
      for (const watch of [...watches.values()])
        for (const finish of [...watch.finishers]) finish(watch.latest);
      if (timer !== null) clearTimeout(timer);
      timer = null;
    },
  };
}

export type ApprovalService = ReturnType<typeof createApprovalService>;
