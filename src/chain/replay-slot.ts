// Where a gRPC stream resumes after a reconnect: the highest slot whose updates are all committed.
// A slot counts once it is complete (its block meta came, or its block time was read instead) and no
// transaction of it, or of an earlier slot, is still waiting to be committed.

export class ReplaySlot {
  /** Signatures seen but not yet committed, by slot. */
  private readonly pending = new Map<number, Set<string>>();
  private completeMax: number | null = null;

  seen(slot: number, signature: string): void {
    const set = this.pending.get(slot);
    if (set === undefined) this.pending.set(slot, new Set([signature]));
    else set.add(signature);
  }

  complete(slot: number): void {
    if (this.completeMax === null || slot > this.completeMax) this.completeMax = slot;
  }

  committed(slot: number, signature: string): void {
    const set = this.pending.get(slot);
    if (set === undefined) return;
    set.delete(signature);
    if (set.size === 0) this.pending.delete(slot);
  }

  /** Forget everything (what was pending will be read by the backfill instead). */
  reset(): void {
    this.pending.clear();
    this.completeMax = null;
  }

  /** The slot to resume from, or null when nothing is known yet. */
  get value(): number | null {
    if (this.completeMax === null) return null;
    let lowestPending = Number.POSITIVE_INFINITY;
    for (const slot of this.pending.keys()) lowestPending = Math.min(lowestPending, slot);
    return Math.min(this.completeMax, lowestPending - 1);
  }
}
