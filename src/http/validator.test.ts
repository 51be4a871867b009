import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from '@fastify/type-provider-typebox';
import { StringEnum } from '../lib/json-schema.js';
import { strictValidatorCompiler, validatorCompiler } from './validator.js';

interface Issue {
  keyword: string;
  instancePath: string;
  message: string;
}

const issuesOf = (
  compiler: typeof validatorCompiler,
  schema: object,
  httpPart: 'body' | 'querystring',
  value: unknown,
): Issue[] => {
  const validate = compiler({ schema, httpPart, method: 'POST', url: '/' } as never) as (value: unknown) => {
    error?: Issue[];
  };
  return (validate(value).error ?? []).map(({ keyword, instancePath, message }) => ({
    keyword,
    instancePath,
    message,
  }));
};

const Body = Type.Object(
  {
    events: Type.Array(StringEnum(['transaction.executed', 'vault.paused'])),
    type: Type.Optional(Type.Union([Type.Literal('transaction'), Type.Literal('message')])),
    cluster: Type.Optional(Type.Union([Type.Literal('devnet'), Type.Null()])),
    data: Type.Optional(Type.Union([Type.String(), Type.Literal(1)])),
  },
  { additionalProperties: false },
);

test('an enum names its allowed values, in items of an array too', () => {
  assert.deepEqual(
    issuesOf(validatorCompiler, Body, 'body', { events: ['vault.paused', 'vault.exploded'] }),
    [
      {
        keyword: 'enum',
        instancePath: '/events/1',
        message: 'must be one of transaction.executed, vault.paused',
      },
    ],
  );
});

test('a union of constants is one issue listing them (null included), not one per branch', () => {
  assert.deepEqual(issuesOf(validatorCompiler, Body, 'body', { events: [], type: 5, cluster: 'mainnet' }), [
    { keyword: 'enum', instancePath: '/type', message: 'must be one of transaction, message' },
    { keyword: 'enum', instancePath: '/cluster', message: 'must be one of devnet, null' },
  ]);
});

test('a union that is not only constants keeps its own issues', () => {
  const issues = issuesOf(validatorCompiler, Body, 'body', { events: [], data: true });
  assert.ok(issues.length > 0);
  assert.ok(
    issues.every((i) => i.keyword !== 'enum'),
    JSON.stringify(issues),
  );
});

test('the values are all listed even when the validator stopped collecting issues', () => {
  // Eight wrong fields fill the validator's issue buffer before the union's own issue is reached.
  const Wide = Type.Object({
    ...Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`f${i}`, Type.String()])),
    status: Type.Union([Type.Literal('a'), Type.Literal('b'), Type.Literal('c')]),
  });
  const value = { ...Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`f${i}`, 1])), status: 'z' };
  const issues = issuesOf(validatorCompiler, Wide, 'body', value);
  const status = issues.filter((i) => i.instancePath === '/status');
  assert.deepEqual(status, [{ keyword: 'enum', instancePath: '/status', message: 'must be one of a, b, c' }]);
});

test('query strings through the strict compiler list the values too', () => {
  const Query = Type.Object(
    {
      status: Type.Optional(StringEnum(['executed', 'blocked', 'pending'])),
      limit: Type.Optional(Type.Integer()),
    },
    { additionalProperties: false },
  );
  assert.deepEqual(issuesOf(strictValidatorCompiler, Query, 'querystring', { status: 'done', limit: '2' }), [
    { keyword: 'enum', instancePath: '/status', message: 'must be one of executed, blocked, pending' },
  ]);
});
