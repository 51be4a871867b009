// The API on a port of its own, on the fake validator and a fresh test database: the setup the Action
// and landing benchmarks share (Blinks named for a public host, limits off as these benches measure the
// handlers).
import type { AddressInfo } from 'node:net';
import { buildApp } from '../../src/app.js';
import { createTestDeps } from '../../test/support/app.js';
import { createTestStorage } from '../../test/support/database.js';
import { startFakeValidator } from '../../test/support/fake-validator/index.js';

export async function startAppOnFakeChain() {
  const storage = await createTestStorage();
  const fake = await startFakeValidator();
  const deps = createTestDeps({
    storage: storage.storage,
    env: {
      SOLANA_RPC_URL: fake.rpcUrl,
      RATE_LIMIT_ENABLED: 'false',
      PUBLIC_BASE_URL: 'https://blinks.example',
    },
  });
  const app = await buildApp(deps);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const base = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  return { storage, fake, deps, app, base };
}
