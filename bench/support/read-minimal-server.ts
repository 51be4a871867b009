// Diagnostic server for the read benchmark: Fastify with only the vault read routes (no security
// headers, rate limits, request accounting or per-request logger), on the same database and cache
// code as the service. The gap between it and the full service is the cost of the app-wide plugins.

import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';
import Fastify from 'fastify';
import { createAppDeps } from '../../src/app-deps.js';
import { loadConfig } from '../../src/config.js';
import { createDisconnectedChainStatus } from '../../src/domain/health/chain-status.js';
import { registerErrorHandling } from '../../src/http/error-handler.js';
import { vaultRoutes } from '../../src/http/routes/vaults.routes.js';
import { ErrorEnvelope } from '../../src/http/schemas/common.js';
import { createServices } from '../../src/services.js';
import { createDatabase } from '../../src/storage/database.js';

const config = loadConfig();
const storage = await createDatabase(config.database);
const deps = createAppDeps({ config, storage, chainStatus: createDisconnectedChainStatus(config.cluster) });
const services = createServices(deps);
const app = Fastify({ logger: false });
app.setValidatorCompiler(TypeBoxValidatorCompiler);
app.addSchema(ErrorEnvelope);
registerErrorHandling(app);
await app.register(vaultRoutes, { vaults: services.vaults });
app.get('/api/health', async () => ({ status: 'ok' }));
await app.listen({ port: config.port, host: config.host });
process.once('SIGTERM', async () => {
  await app.close();
  await services.close();
  await storage.close();
  process.exit(0);
});
