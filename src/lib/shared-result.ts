// One load for many callers: concurrent callers share the load in flight, and its result is reused for a
// short period, so however many ask, the source sees at most one call per period. A failed load is not kept.

export function createSharedResult<T>(
  load: () => Promise<T>,
  options: { readonly reuseMs: number; readonly now: () => number },
): () => Promise<T> {
  let kept: { value: T; at: number } | null = null;
  let inFlight: Promise<T> | null = null;
  return () => {
    const age = kept === null ? -1 : options.now() - kept.at;
    // A clock that went back never stretches the reuse.
    if (kept !== null && age >= 0 && age < options.reuseMs) return Promise.resolve(kept.value);
    inFlight ??= load()
      .then((value) => {
        kept = { value, at: options.now() };
        return value;
      })
      .finally(() => {
        inFlight = null;
      });
    return inFlight;
  };
}
