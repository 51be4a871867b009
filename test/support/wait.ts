import { loadFactor } from './load.js';

/**
 * Polls until `check` returns a truthy value or the deadline passes; never a fixed sleep. The deadline
 * is a bound on a condition, not a speed target: it grows with the machine's load (as start-up
 * deadlines do), so a run beside other work waits longer instead of failing.
 */
export async function waitFor<T>(
  check: () => T | Promise<T>,
  options: { timeoutMs?: number; intervalMs?: number; message?: string } = {},
): Promise<NonNullable<T>> {
  const timeoutMs = Math.round((options.timeoutMs ?? 10_000) * loadFactor());
  const deadline = Date.now() + timeoutMs;
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
      throw new Error(`${options.message ?? 'condition not met'} within ${timeoutMs} ms${reason}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 20));
  }
}
