/** Polls until `check` returns a truthy value or the deadline passes; never a fixed sleep. */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  options: { timeoutMs?: number; intervalMs?: number; message?: string } = {},
): Promise<NonNullable<T>> {
  const deadline = Date.now() + (options.timeoutMs ?? 10_000);
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value as NonNullable<T>;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const reason = lastError instanceof Error ? `: ${lastError.message}` : '';
      throw new Error(
        `${options.message ?? 'condition not met'} within ${options.timeoutMs ?? 10_000} ms${reason}`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 20));
  }
}
