// Wakes the worker as soon as deliveries commit: LISTEN on PostgreSQL and on PGlite; polling covers gaps.
import type { Logger } from 'pino';
import { DELIVERY_CHANNEL } from '../domain/webhooks/outbox.js';
import type { Storage } from '../storage/database.js';

const RELISTEN_DELAY_MS = 1_000;

interface PgliteClient {
  listen(channel: string, callback: (payload: string) => void): Promise<() => Promise<void>>;
}

/** Calls `onNotify` for every enqueue notification until the returned stop function runs. */
export async function listenForDeliveries(
  storage: Storage,
  onNotify: () => void,
  logger: Logger,
): Promise<() => Promise<void>> {
  if (storage.pool === null) {
    const client = (storage.db as unknown as { $client?: Partial<PgliteClient> }).$client;
    if (typeof client?.listen !== 'function') return async () => {};
    const unlisten = await client.listen(DELIVERY_CHANNEL, onNotify);
    return async () => {
      await unlisten().catch(() => {});
    };
  }
  const pool = storage.pool;
  let stopped = false;
  let release: (() => Promise<void>) | null = null;
  let timer: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    if (stopped) return;
    try {
      const client = await pool.connect();
      let released = false;
      const drop = (error?: Error) => {
        if (released) return;
        released = true;
        client.release(error ?? true);
      };
      client.on('notification', (message) => {
        if (message.channel === DELIVERY_CHANNEL) onNotify();
      });
      client.on('error', (error) => {
        logger.warn(
          { err: error.message },
          'delivery listener lost its connection; polling until it is back',
        );
        drop(error);
        if (!stopped) timer = setTimeout(() => void connect(), RELISTEN_DELAY_MS);
      });
      await client.query(`LISTEN ${DELIVERY_CHANNEL}`);
      release = async () => {
        await client.query(`UNLISTEN ${DELIVERY_CHANNEL}`).catch(() => {});
        drop();
      };
      // Rows committed while nobody listened are picked up by this wake-up.
      onNotify();
    } catch (error) {
      logger.warn({ err: (error as Error).message }, 'delivery listener could not connect; retrying');
      if (!stopped) timer = setTimeout(() => void connect(), RELISTEN_DELAY_MS);
    }
  };
  await connect();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await release?.();
  };
}
