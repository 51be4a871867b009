import assert from 'node:assert/strict';
import { test } from 'node:test';
import { cachedSerializers } from './serializer-compiler.js';

const route = (schema: unknown) => ({ method: 'GET', url: '/x', httpStatus: '200', schema });
const Thing = { $id: 'Thing', type: 'object', properties: { a: { type: 'string' } } };

test('an equal schema gets the serializer already compiled, from any app', () => {
  const schema = { type: 'object', properties: { n: { type: 'integer' } } };
  const first = cachedSerializers({ Thing }, {})(route(schema));
  const again = cachedSerializers({ Thing }, {})(route(structuredClone(schema)));
  assert.equal(again, first);
  assert.equal(first({ n: 3, hidden: 'x' }), '{"n":3}');
});

test('a schema that differs, or the same $ref to another shared schema, gets its own serializer', () => {
  const withA = cachedSerializers({ Thing }, {})(route({ $ref: 'Thing#' }));
  const otherThing = { ...Thing, properties: { b: { type: 'string' } } };
  const withB = cachedSerializers({ Thing: otherThing }, {})(route({ $ref: 'Thing#' }));
  assert.notEqual(withB, withA);
  assert.equal(withA({ a: '1', b: '2' }), '{"a":"1"}');
  assert.equal(withB({ a: '1', b: '2' }), '{"b":"2"}');
  const two = { type: 'object', properties: { n: { type: 'integer' }, m: { type: 'integer' } } };
  const wider = cachedSerializers({ Thing }, {})(route(two));
  assert.equal(wider({ n: 1, m: 2 }), '{"n":1,"m":2}');
});
