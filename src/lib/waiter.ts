// One wait at a time that a timer, an abort or release() ends: for loops that sleep until poked.

export interface Waiter {
  /** Resolves after ms, on release(), or when the signal aborts (never rejects). */
  wait(ms: number, signal: AbortSignal): Promise<void>;
  /** Ends the current wait, if there is one. */
  release(): void;
}

export function createWaiter(): Waiter {
  let done: (() => void) | null = null;
  return {
    release: () => done?.(),
    wait: (ms, signal) =>
      new Promise<void>((resolve) => {
        const finish = () => {
          clearTimeout(timer);
          signal.removeEventListener('abort', finish);
          done = null;
          resolve();
        };
        const timer = setTimeout(finish, ms);
        done = finish;
        signal.addEventListener('abort', finish, { once: true });
      }),
  };
}
