// CI: a client generated from docs/openapi.json by a maintained generator (openapi-typescript) compiles
// under strict settings (skipLibCheck off), and names every operation after its operationId.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const documentPath = join(root, 'docs/openapi.json');
const document = JSON.parse(readFileSync(documentPath, 'utf8'));
const operationIds = Object.values(document.paths).flatMap((item) =>
  Object.values(item).flatMap((op) => (op.operationId === undefined ? [] : [op.operationId])),
);
const webhookIds = Object.values(document.webhooks ?? {}).map((item) => item.post.operationId);

const dir = mkdtempSync(join(tmpdir(), 'vk-openapi-client-'));
try {
  const bin = (name) => join(root, 'node_modules', '.bin', name);
  execFileSync(bin('openapi-typescript'), [documentPath, '-o', join(dir, 'schema.ts')], { stdio: 'pipe' });
  // Each operation is looked up by its operationId: a generator that named them otherwise fails here.
  const consumer = `import type { components, operations, paths, webhooks } from './schema.js';

export type Operations = [
${operationIds.map((id) => `  operations['${id}'],`).join('\n')}
];
export type WebhookOperations = [
${webhookIds.map((id) => `  operations['${id}'],`).join('\n')}
];
type VaultList = operations['listVaults']['responses'][200]['content']['application/json'];
export const firstVault = (list: VaultList): components['schemas']['VaultListItem'] | undefined => list.vaults[0];
export const deposit = (vault: components['schemas']['Vault']): string => vault.depositAddress;
export type Recover = paths['/api/webhooks/{id}/recover']['post']['requestBody'];
export type Executed = webhooks['transaction.executed']['post'];
export type Limited = operations['listVaults']['responses'][429]['headers']['retry-after'];
`;
  writeFileSync(join(dir, 'consumer.ts'), consumer);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        skipLibCheck: false,
        noUncheckedIndexedAccess: true,
        exactOptionalPropertyTypes: true,
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        types: [],
      },
      files: ['schema.ts', 'consumer.ts'],
    }),
  );
  execFileSync(bin('tsc'), ['-p', join(dir, 'tsconfig.json')], { stdio: 'inherit' });
  process.stdout.write(
    `openapi-typescript client of docs/openapi.json compiles: ${operationIds.length} operations and ${webhookIds.length} webhooks by operationId\n`,
  );
} catch (error) {
  process.stderr.write(`${error.stdout ?? ''}${error.stderr ?? ''}`);
  process.stderr.write('the client generated from docs/openapi.json does not compile\n');
  process.exitCode = 1;
} finally {
  rmSync(dir, { recursive: true, force: true });
}
