// @vaultkeeper/client declares its own types (it ships without the server); this keeps them in step with
// the OpenAPI document the service serves: every property, which are optional, and the kinds of values.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { createTestApp } from '../support/app.js';
import { createTestStorage, type TestStorage } from '../support/database.js';
import { createTypeSchemaComparer, type JsonSchema } from '../support/type-schema-drift.js';

const ENTRY = fileURLToPath(new URL('../../packages/client/src/index.ts', import.meta.url));

/** Each exported type of the client and where the document describes it: a status, `body` or `query`. */
const TYPES: [name: string, method: string, path: string, where: string][] = [
  ['Health', 'get', '/api/health', '200'],
  ['VaultList', 'get', '/api/vaults', '200'],
  ['VaultListQuery', 'get', '/api/vaults', 'query'],
  ['Vault', 'get', '/api/vaults/{address}', '200'],
  ['Budget', 'get', '/api/vaults/{address}/budget', '200'],
  ['TransferCheck', 'get', '/api/vaults/{address}/check', '200'],
  ['Approval', 'get', '/api/vaults/{address}/approvals/{signature}', '200'],
  ['CreateVaultBody', 'post', '/api/vaults', 'body'],
  ['CreateVaultResponse', 'post', '/api/vaults', '201'],
  ['UpdateVaultBody', 'patch', '/api/vaults/{address}', 'body'],
  ['UpdateVaultResponse', 'patch', '/api/vaults/{address}', '200'],
  ['AuthVerifyResponse', 'post', '/api/auth/verify', '200'],
  ['TransactionList', 'get', '/api/transactions', '200'],
  ['TransactionListQuery', 'get', '/api/transactions', 'query'],
  ['TransactionDetail', 'get', '/api/transactions/{key}', '200'],
  ['OverrideList', 'get', '/api/overrides', '200'],
  ['OverrideListQuery', 'get', '/api/overrides', 'query'],
  ['Override', 'get', '/api/overrides/{vault}/{nonce}', '200'],
  ['Analytics', 'get', '/api/analytics', '200'],
  ['AnalyticsQuery', 'get', '/api/analytics', 'query'],
  ['Realtime', 'get', '/api/analytics/realtime', '200'],
  ['RealtimeQuery', 'get', '/api/analytics/realtime', 'query'],
  ['TransactionPreview', 'get', '/api/overrides/{vault}/{nonce}/preview', '200'],
  ['ApprovalPreviewQuery', 'get', '/api/overrides/{vault}/{nonce}/preview', 'query'],
  ['ConfirmApproveBody', 'post', '/api/actions/{vault}/{nonce}/approve/confirm', 'body'],
  ['CompletedAction', 'post', '/api/actions/{vault}/{nonce}/approve/confirm', '200'],
  ['CreateWebhookBody', 'post', '/api/webhooks', 'body'],
  ['WebhookWithSecret', 'post', '/api/webhooks', '201'],
  ['PageQuery', 'get', '/api/webhooks', 'query'],
  ['WebhookList', 'get', '/api/webhooks', '200'],
  ['WebhookSubscription', 'get', '/api/webhooks/{id}', '200'],
  ['UpdateWebhookBody', 'patch', '/api/webhooks/{id}', 'body'],
  ['DeliveriesQuery', 'get', '/api/webhooks/{id}/deliveries', 'query'],
  ['DeliveryList', 'get', '/api/webhooks/{id}/deliveries', '200'],
  ['WebhookDelivery', 'post', '/api/webhooks/{id}/test', '202'],
  ['CreateApiKeyBody', 'post', '/api/api-keys', 'body'],
  ['ApiKeyWithKey', 'post', '/api/api-keys', '201'],
  ['ApiKeyList', 'get', '/api/api-keys', '200'],
  ['ActionsJson', 'get', '/actions.json', '200'],
  ['ActionMetadata', 'get', '/api/actions/{vault}/{nonce}', '200'],
  ['ActionPostRequest', 'post', '/api/actions/{vault}/{nonce}/approve', 'body'],
  ['ActionTransaction', 'post', '/api/actions/{vault}/{nonce}/approve', '200'],
  ['RejectResponse', 'post', '/api/actions/{vault}/{nonce}/reject', '200'],
  ['ConfirmRejectBody', 'post', '/api/actions/{vault}/{nonce}/reject/confirm', 'body'],
  ['CompletedAction', 'post', '/api/actions/{vault}/{nonce}/reject/confirm', '200'],
];

interface Parameter {
  in: string;
  name: string;
  required?: boolean;
  schema: JsonSchema;
}

let storage: TestStorage;
let document: {
  paths: Record<string, Record<string, Record<string, unknown>>>;
  components: { schemas: Record<string, JsonSchema> };
};

before(async () => {
  storage = await createTestStorage();
  const { app } = await createTestApp({ storage: storage.storage });
  document = (await app.inject('/api/openapi.json')).json();
  await app.close();
});
after(() => storage.close());

const resolve = (schema: JsonSchema): JsonSchema => {
  const ref = schema.$ref;
  if (typeof ref !== 'string') return schema;
  const target = document.components.schemas[ref.replace('#/components/schemas/', '')];
  assert.ok(target, `unresolved ${ref}`);
  return resolve(target);
};

function schemaAt(method: string, path: string, where: string): JsonSchema {
  const operation = document.paths[path]?.[method];
  assert.ok(operation, `${method.toUpperCase()} ${path} is not in the document`);
  const json = (content: unknown) =>
    (content as Record<string, { schema: JsonSchema }>)['application/json']!.schema;
  if (where === 'body') return json((operation.requestBody as { content: unknown }).content);
  if (where === 'query') {
    const query = ((operation.parameters as Parameter[] | undefined) ?? []).filter((p) => p.in === 'query');
    return {
      type: 'object',
      properties: Object.fromEntries(query.map((p) => [p.name, p.schema])),
      required: query.filter((p) => p.required).map((p) => p.name),
    };
  }
  return json((operation.responses as Record<string, { content: unknown }>)[where]!.content);
}

/** Calls a user may write: the first five must not compile (one per line, from line 4). */
const CALLS = fileURLToPath(new URL('approval-calls.ts', import.meta.url));
const CALL_LINES = [
  "import { createVaultkeeperClient, type Override } from '@vaultkeeper/client';",
  'declare const override: Override;',
  "const c = createVaultkeeperClient({ baseUrl: 'https://vaultkeeper.example.com' });",
  "const vault = 'V', account = 'A';",
  "c.approvals.approve({ vault, nonce: '0', account });",
  'c.approvals.preview({ vault, nonce: 0, account });',
  "c.approvals.confirm({ vault, nonce: 0n, account, signature: 's' });",
  "c.actions.approve({ vault, nonce: '0' }, { account });",
  "c.approvals.approve({ vault, nonce: '0', transfer: 's', first: true, account });",
  "c.approvals.approve({ vault, nonce: '0', transfer: 's', account });",
  "c.approvals.approve({ vault, nonce: '0', first: true, account });",
  'c.approvals.approve({ ...override, account });',
  "c.approvals.confirm({ ...override, account, signature: 's' });",
  'c.actions.approve(override, { account });',
  'c.analytics.realtime({ vault });',
  'c.analytics.realtime(vault);',
];

/** One program (type-checking the client costs seconds) holding the client and the calls above. */
const program = (() => {
  let built: ts.Program | undefined;
  return () => {
    if (built !== undefined) return built;
    const options: ts.CompilerOptions = {
      strict: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      customConditions: ['vaultkeeper-source'],
      lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
      noEmit: true,
    };
    const host = ts.createCompilerHost(options);
    const read = host.getSourceFile;
    host.getSourceFile = (name, version) =>
      name === CALLS
        ? ts.createSourceFile(name, CALL_LINES.join('\n'), version)
        : read.call(host, name, version);
    built = ts.createProgram([ENTRY, CALLS], options, host);
    return built;
  };
})();

test("the client package's types match the served OpenAPI schemas, property by property", () => {
  const differences = createTypeSchemaComparer(program());
  const found = TYPES.flatMap(([name, method, path, where]) =>
    differences(ENTRY, name, schemaAt(method, path, where), resolve),
  );
  assert.deepEqual(found, []);
});

test('a decision named by vault and nonce alone does not compile; by transfer, first: true or the override object it does', () => {
  const failing = ts
    .getPreEmitDiagnostics(program(), program().getSourceFile(CALLS))
    .map((d) => d.file!.getLineAndCharacterOfPosition(d.start!).line);
  assert.deepEqual(
    [...new Set(failing)].sort((a, b) => a - b),
    [4, 5, 6, 7, 8],
  );
});

test('the comparison notices a difference: a missing, an extra and a retyped property', () => {
  const source = `export interface Probe { a: string; b?: number; c: boolean | null }`;
  const file = fileURLToPath(new URL('probe.ts', import.meta.url));
  const host = ts.createCompilerHost({ strict: true });
  const read = host.getSourceFile;
  host.getSourceFile = (name, version) =>
    name === file ? ts.createSourceFile(name, source, version) : read.call(host, name, version);
  const program = ts.createProgram([file], { strict: true, noEmit: true }, host);
  const schema = {
    type: 'object',
    required: ['a', 'b', 'd'],
    properties: {
      a: { type: 'integer' },
      b: { type: 'number' },
      c: { type: 'boolean' },
      d: { type: 'string' },
    },
  };
  assert.deepEqual(createTypeSchemaComparer(program)(file, 'Probe', schema, (s) => s).sort(), [
    'Probe.a: type string vs schema number',
    'Probe.b: optional in the type, not in the schema',
    'Probe.c: required in the type, not in the schema',
    'Probe.c: type boolean,null vs schema boolean',
    'Probe.d: in the schema, not in the type',
  ]);
});
