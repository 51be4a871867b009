// The OpenAPI document the running app serves is valid OpenAPI 3.1 (the same check CI runs on
// docs/openapi.json), and the check refuses what OpenAPI forbids but schema validation lets through.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { type OpenApiDocument, openApiProblems } from '../../scripts/openapi-validation.js';
import { createTestApp } from '../support/app.js';
import { createTestStorage, type TestStorage } from '../support/database.js';

let storage: TestStorage;
let app: FastifyInstance;

before(async () => {
  storage = await createTestStorage();
  ({ app } = await createTestApp({ storage: storage.storage }));
});
after(async () => {
  await app.close();
  await storage.close();
});

async function served(): Promise<OpenApiDocument> {
  const response = await app.inject('/api/openapi.json');
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
