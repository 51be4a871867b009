// The API on a port of its own, on the fake validator and a fresh test database: the setup the Action
// and landing benchmarks share (Blinks named for a public host). It runs as users run it: rate limits on,
// behind one proxy hop (TRUST_PROXY=1), so each request names its client in X-Forwarded-For
// (bench/support/client-pool.ts).
import type { AddressInfo } from 'node:net';
import { startFakeValidator } from '../../dev/validator/index.js';
import { buildApp } from '../../src/app.js';
import { createTestDeps } from '../../test/support/app.js';
import { createTestStorage } from '../../test/support/database.js';

/**
 * More requests a second than the app, its database, the fake RPC and the load generator can answer
 * sharing this process (a few thousand at most on the cheapest route): client pools are sized for it.
 */
export const IN_PROCESS_MAX_RATE = 20_000;

export async function startAppOnFakeChain(env: Record<string, string> = {}) {
  const storage = await createTestStorage();
  const fake = await startFakeValidator();
  const deps = createTestDeps({
    storage: storage.storage,
    env: {
      SOLANA_RPC_URL: fake.rpcUrl,
      TRUST_PROXY: '1',
      PUBLIC_BASE_URL: 'https://blinks.example',
      ...env,
    },
  });
  const app = await buildApp(deps);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return { storage, fake, deps, app, base };
}
