// The error envelope every route answers with: 404, validation issues naming each field, 413, 415,
// prototype-pollution keys, a generic 500 whose cause goes only to the log, and request ids.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Type } from '@fastify/type-provider-typebox';
import { createLogCapture } from '../support/app.js';
import { useTestApps } from '../support/test-apps.js';

const logs = createLogCapture();
const world = useTestApps({
  logs,
  fileApp: {
    // Routes that exist only to exercise the error handler.
    routes: (app) => {
      app.post(
        '/test/echo',
        {
          schema: {
            body: Type.Object(
              { name: Type.String({ minLength: 1 }), count: Type.Integer() },
              { additionalProperties: false },
            ),
          },
        },
        async (request) => request.body,
      );
      app.get('/test/boom', async () => {
        throw new Error('database password is hunter2');
      });
    },
  },
  emptyEachTest: false,
});

describe('error envelope', () => {
  test('unknown route is 404 NOT_FOUND', async () => {
    const res = await world.app.inject({ method: 'GET', url: '/api/nothing-here' });
    assert.equal(res.statusCode, 404);
    assert.match(res.headers['content-type'] as string, /application\/json/);
    const body = res.json();
    assert.equal(body.code, 'NOT_FOUND');
    assert.equal(typeof body.error, 'string');
    assert.equal(typeof body.details, 'object');
  });

  test('malformed JSON is 400 VALIDATION_ERROR with issues', async () => {
    const res = await world.app.inject({
      method: 'POST',
      url: '/test/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().code, 'VALIDATION_ERROR');
    assert.ok(res.json().details.issues.length > 0);
  });

  test('schema failures name each bad field', async () => {
    const res = await world.app.inject({
      method: 'POST',
      url: '/test/echo',
      payload: { name: '', count: 'x', extra: true },
    });
    assert.equal(res.statusCode, 400);
    const body = res.json();
    assert.equal(body.code, 'VALIDATION_ERROR');
    const paths = body.details.issues.map((i: { path: string }) => i.path);
    assert.ok(paths.includes('body.name'), paths.join());
    assert.ok(paths.includes('body.count'), paths.join());
    assert.ok(paths.includes('body.extra'), paths.join());
    for (const issue of body.details.issues) assert.equal(typeof issue.message, 'string');
  });

  test('a missing required field is named', async () => {
    const res = await world.app.inject({ method: 'POST', url: '/test/echo', payload: { name: 'a' } });
    assert.equal(res.statusCode, 400);
    assert.ok(res.json().details.issues.some((i: { path: string }) => i.path === 'body.count'));
  });

  test('a body over 64 KiB is 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await world.app.inject({
      method: 'POST',
      url: '/test/echo',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(70_000), count: 1 }),
    });
    assert.equal(res.statusCode, 413);
    assert.equal(res.json().code, 'PAYLOAD_TOO_LARGE');
  });

  test('a body that is not JSON is 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      const res = await world.app.inject({
        method: 'POST',
        url: '/test/echo',
        headers: { 'content-type': type },
        payload: 'name=a',
      });
      assert.equal(res.statusCode, 415, type);
      assert.equal(res.json().code, 'UNSUPPORTED_MEDIA_TYPE');
    }
  });

  test('prototype-pollution keys are refused', async () => {
    const res = await world.app.inject({
      method: 'POST',
      url: '/test/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"name":"a","count":1,"__proto__":{"admin":true}}',
    });
    assert.equal(res.statusCode, 400);
    assert.equal(res.json().code, 'VALIDATION_ERROR');
  });

  test('an unexpected error is a generic 500 and its cause goes only to the log', async () => {
    const res = await world.app.inject({ method: 'GET', url: '/test/boom' });
    assert.equal(res.statusCode, 500);
    assert.deepEqual(res.json(), { error: 'Internal server error', code: 'INTERNAL_ERROR', details: {} });
    assert.doesNotMatch(res.body, /hunter2/);
    assert.ok(logs.lines.some((line) => line.includes('hunter2') && line.includes('"level":"error"')));
  });

  test('every response carries a request id, and a sane given one is echoed', async () => {
    const generated = await world.app.inject({ method: 'GET', url: '/api/health' });
    assert.match(generated.headers['x-request-id'] as string, /^[0-9a-f-]{36}$/);
    const echoed = await world.app.inject({
      method: 'GET',
      url: '/api/health',
      headers: { 'x-request-id': 'trace-abc.1' },
    });
    assert.equal(echoed.headers['x-request-id'], 'trace-abc.1');
    const hostile = await world.app.inject({
      method: 'GET',
      url: '/api/health',
      headers: { 'x-request-id': 'a b<script>' },
    });
    assert.notEqual(hostile.headers['x-request-id'], 'a b<script>');
  });
});
