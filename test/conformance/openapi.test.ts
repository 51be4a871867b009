// The OpenAPI document the running app serves is valid OpenAPI 3.1 (the same check CI runs on
// docs/openapi.json), and the check refuses what OpenAPI forbids but schema validation lets through.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { WEBHOOK_EVENTS } from '@vaultkeeper/webhooks';
import { type OpenApiDocument, openApiProblems } from '../../scripts/openapi-validation.js';
import { useTestApps } from '../support/test-apps.js';

const world = useTestApps({ fileApp: true, emptyEachTest: false });

async function served(): Promise<OpenApiDocument> {
  const response = await world.app.inject('/api/openapi.json');
  assert.equal(response.statusCode, 200);
  return response.json();
}

const operation = (name: string) => ({
  parameters: [{ in: 'path', name, required: true, schema: { type: 'string' } }],
  responses: { 200: { description: 'ok' } },
});

describe('OpenAPI document', () => {
  test('the served document passes the OpenAPI 3.1 validator and the path-template rules', async () => {
    const document = await served();
    assert.match(String(document.openapi), /^3\.1\./);
    assert.deepEqual(await openApiProblems(document), []);
  });

  test('one parameter name per path template: GET and PATCH of a vault share /api/vaults/{address}', async () => {
    const { paths = {} } = await served();
    assert.equal(paths['/api/vaults/{id}'], undefined);
    const item = paths['/api/vaults/{address}'];
    assert.ok(item?.get && item.patch, 'both operations under one template');
    for (const op of [item.get, item.patch]) {
      assert.deepEqual(
        op.parameters?.filter((p) => p.in === 'path').map((p) => p.name),
        ['address'],
      );
    }
  });

  test('refuses /x/{a} beside /x/{b}, which the schema validator alone accepts', async () => {
    const document = await served();
    document.paths = {
      ...document.paths,
      '/x/{a}': { get: operation('a') },
      '/x/{b}': { delete: operation('b') },
    };
    const problems = await openApiProblems(document);
    assert.deepEqual(problems, [
      'paths /x/{a} and /x/{b} are the same template with different parameter names',
    ]);
  });

  test('refuses a template parameter that no operation declares, and a declared one the template lacks', async () => {
    const document = await served();
    document.paths = { ...document.paths, '/y/{a}': { get: operation('b') } };
    const problems = await openApiProblems(document);
    assert.ok(problems.includes('GET /y/{a} does not declare path parameter a'), problems.join('\n'));
    assert.ok(problems.includes('GET /y/{a} declares path parameter b that the template lacks'));
  });

  test('refuses a document that is not OpenAPI 3.1 or breaks the specification schema', async () => {
    // 3.0 has no `webhooks`: without them, the validator reaches the missing version.
    const { webhooks: _webhooks, ...document } = await served();
    const problems = await openApiProblems({ ...document, openapi: '3.0.3', info: { title: 'no version' } });
    assert.ok(problems.some((p) => p.includes('expected an OpenAPI 3.1 document')));
    assert.ok(
      problems.some((p) => /required property 'version'/.test(p)),
      problems.join('\n'),
    );
  });
});

// Routes left out of the document on purpose: HTML pages, their assets, the docs UI and the document.
const UNDOCUMENTED = [
  /^\/docs(\/|$)/,
  /^\/api\/openapi\.json$/,
  /^\/assets\//,
  /^\/vaults\//,
  /^\/overrides\//,
  // The owner's page of pending approvals (HTML for people; the API is GET /api/overrides?owner=).
  /^\/owners\//,
  /^\/webhooks\/confirm\//,
  // The HTML landing page for people, linking /docs.
  /^\/$/,
];
const OPERATION_ID = /^[a-z][a-zA-Z0-9]*$/;
const STANDARD_FORMATS = new Set(['date-time', 'date', 'uuid', 'uri', 'email', 'int32', 'int64', 'byte']);

type Content = Record<string, { schema?: { $ref?: string; type?: string } }>;
type Operation = {
  operationId?: string;
  requestBody?: { content?: Content };
  responses?: Record<
    string,
    {
      description?: string;
      headers?: Record<string, unknown>;
      content?: Content;
    }
  >;
};

/** Every problem with one operation against the conventions (CONTRIBUTING.md, OpenAPI: what a route declares). */
function conventionProblems(label: string, op: Operation, limited: boolean): string[] {
  const problems: string[] = [];
  if (!OPERATION_ID.test(op.operationId ?? '')) problems.push(`${label}: needs a camelCase operationId`);
  for (const [status, response] of Object.entries(op.responses ?? {})) {
    if (!response.description || response.description === 'Default Response')
      problems.push(`${label} ${status}: needs a response description (described(schema, '…'))`);
    const json = response.content?.['application/json']?.schema;
    if (json !== undefined && !json.$ref?.startsWith('#/components/schemas/'))
      problems.push(`${label} ${status}: the JSON schema must be a named one (give it a title)`);
    // A report answered with a 5xx too (health, readiness) keeps its own schema.
    const report = op.responses?.['200']?.content?.['application/json']?.schema?.$ref;
    if (
      /^[45]/.test(status) &&
      json?.$ref !== report &&
      json !== undefined &&
      json.$ref !== '#/components/schemas/ErrorEnvelope'
    )
      problems.push(`${label} ${status}: errors are the ErrorEnvelope`);
  }
  const body = op.requestBody?.content?.['application/json']?.schema;
  if (body !== undefined && !body.$ref?.startsWith('#/components/schemas/'))
    problems.push(`${label}: the JSON request body must be a named schema (give it a title)`);
  const tooMany = op.responses?.['429'];
  if (limited && tooMany?.headers?.['retry-after'] === undefined)
    problems.push(`${label}: a rate-limited route documents 429 with Retry-After`);
  return problems;
}

function formatsIn(node: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const item of node) formatsIn(item, found);
  else if (typeof node === 'object' && node !== null) {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'format' && typeof value === 'string') found.add(value);
      else formatsIn(value, found);
    }
  }
  return found;
}

describe('OpenAPI conventions, over every route of the app', () => {
  test('every route is documented with an operationId, described responses, named schemas and its 429', async () => {
    const { listRoutes } = await import('../support/hostile-requests.js');
    const document = (await served()) as unknown as { paths: Record<string, Record<string, Operation>> };
    const problems: string[] = [];
    const ids = new Map<string, string>();
    for (const route of listRoutes(world.app)) {
      if (UNDOCUMENTED.some((pattern) => pattern.test(route.path))) continue;
      const template = route.path.replace(/:(\w+)/g, '{$1}');
      for (const method of route.methods) {
        if (method === 'HEAD' || method === 'OPTIONS') continue;
        const label = `${method} ${route.path}`;
        const op = document.paths[template]?.[method.toLowerCase()];
        if (op === undefined) {
          problems.push(`${label}: not in the OpenAPI document (or add it to UNDOCUMENTED with a reason)`);
          continue;
        }
        const exempt = ['/api/health', '/metrics', '/livez', '/readyz'].includes(route.path);
        problems.push(...conventionProblems(label, op, !exempt));
        const other = ids.get(op.operationId ?? '');
        if (other !== undefined) problems.push(`${label}: operationId ${op.operationId} is also ${other}'s`);
        ids.set(op.operationId ?? '', label);
      }
    }
    assert.deepEqual(problems, []);
    assert.ok(ids.size >= 35, `${ids.size} operations`);
  });

  test('the conventions catch an operation that breaks them', () => {
    const inline = { content: { 'application/json': { schema: { type: 'object' } } } };
    const problems = conventionProblems(
      'GET /x',
      { responses: { 200: { description: 'Default Response', ...inline } } },
      true,
    );
    assert.deepEqual(problems, [
      'GET /x: needs a camelCase operationId',
      "GET /x 200: needs a response description (described(schema, '…'))",
      'GET /x 200: the JSON schema must be a named one (give it a title)',
      'GET /x: a rate-limited route documents 429 with Retry-After',
    ]);
  });

  test('named resources, standard formats only, the live feed as text/event-stream, webhook payloads', async () => {
    const document = (await served()) as unknown as {
      components: { schemas: Record<string, unknown> };
      paths: Record<
        string,
        Record<string, { responses: Record<string, { content?: Record<string, unknown> }> }>
      >;
      webhooks: Record<
        string,
        { post: { requestBody: { content: Record<string, { schema: { $ref: string } }> } } }
      >;
    };
    for (const name of [
      'Vault',
      'VaultListItem',
      'Transaction',
      'TransactionDetail',
      'Override',
      'Webhook',
      'Delivery',
      'ApiKey',
      'ErrorEnvelope',
      'Pagination',
      'FeedEvent',
    ]) {
      assert.ok(document.components.schemas[name], `components.schemas.${name}`);
    }
    assert.deepEqual(
      [...formatsIn(document)].filter((f) => !STANDARD_FORMATS.has(f)),
      [],
    );
    const stream = document.paths['/api/events/stream']!.get!.responses['200']!;
    assert.deepEqual(Object.keys(stream.content ?? {}), ['text/event-stream']);
    assert.deepEqual(Object.keys(document.webhooks).sort(), [...WEBHOOK_EVENTS, 'webhook.test'].sort());
    const executed =
      document.webhooks['transaction.executed']!.post.requestBody.content['application/json']!.schema;
    assert.equal(executed.$ref, '#/components/schemas/TransactionExecutedEvent');
    const body = document.components.schemas.TransactionExecutedEvent as {
      properties: Record<string, { $ref?: string; const?: string }>;
    };
    assert.equal(body.properties.data!.$ref, '#/components/schemas/Transaction');
    assert.equal(body.properties.event!.const, 'transaction.executed');
  });
});
