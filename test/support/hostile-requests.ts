// Hostile HTTP requests for property-based tests: every registered route, malformed paths, query
// strings, headers and bodies (huge, deeply nested, wrong types, invalid UTF-8, prototype pollution,
// non-base58 addresses, u64 overflows, invalid dates and dates up to and past year 9999).
import fc from 'fast-check';
import type { FastifyInstance, HTTPMethods } from 'fastify';
import { CONTENT_TYPES, HOSTILE_STRINGS } from './hostile-values.js';

export interface RouteTemplate {
  /** Fastify path, e.g. `/api/vaults/:address` or `/docs/*`. */
  path: string;
  methods: HTTPMethods[];
  /** Names the route reads, from its OpenAPI operation (empty for hidden routes). */
  query: string[];
  body: string[];
}

/** Every route of the app, read from printRoutes (so new routes are covered without a list here). */
export function listRoutes(app: FastifyInstance): RouteTemplate[] {
  const spec = app.swagger() as {
    paths?: Record<string, Record<string, OpenApiOperation>>;
    components?: { schemas?: Record<string, OpenApiSchema> };
  };
  const stack: string[] = [];
  const routes: RouteTemplate[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const match = /^([│ ]*)[├└]── (\S+)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (match === null) continue;
    const depth = match[1]!.length / 4;
    const parent = depth === 0 ? '' : stack[depth - 1]!;
    const segment = match[2]!;
    const path = segment === '*' && !parent.endsWith('/') ? `${parent}/*` : `${parent}${segment}`;
    stack[depth] = path;
    stack.length = depth + 1;
    if (match[3] === undefined) continue;
    const methods = match[3].split(',').map((m) => m.trim() as HTTPMethods);
    // Routes sharing a node print their parameter names joined: `/:address|:id`.
    const variants = [...(path.match(/:\w+(\|:\w+)+/)?.[0].split('|') ?? [])];
    const spellings = variants.length === 0 ? [path] : variants.map((v) => path.replace(/:\w+(\|:\w+)+/, v));
    const ops = spellings.flatMap((p) => Object.values(spec.paths?.[p.replace(/:(\w+)/g, '{$1}')] ?? {}));
    routes.push({
      path: spellings[0]!,
      methods,
      query: ops.flatMap((op) => (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name)),
      body: ops.flatMap((op) =>
        Object.keys(resolve(spec, op.requestBody?.content?.['application/json']?.schema)?.properties ?? {}),
      ),
    });
  }
  return routes;
}

/** A schema, or the named schema its $ref points to (request bodies are named schemas). */
function resolve(spec: { components?: { schemas?: Record<string, OpenApiSchema> } }, schema?: OpenApiSchema) {
  const name = schema?.$ref?.replace('#/components/schemas/', '');
  return name === undefined ? schema : spec.components?.schemas?.[name];
}

interface OpenApiSchema {
  $ref?: string;
  properties?: Record<string, unknown>;
}

interface OpenApiOperation {
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: { content?: Record<string, { schema?: OpenApiSchema }> };
}

/** Addresses, ids and nonces that exist in the seeded database, so some requests reach the domain. */
export interface KnownValues {
  addresses: string[];
  ids: string[];
  numbers: string[];
}

/** A key that only a successful prototype pollution could put on Object.prototype. */
export const POLLUTION_MARKER = 'vkPolluted';

export function hostileText(known: KnownValues): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...HOSTILE_STRINGS) },
    { weight: 3, arbitrary: fc.constantFrom(...known.addresses, ...known.ids, ...known.numbers) },
    { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
    { weight: 1, arbitrary: fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String) },
    {
      weight: 1,
      arbitrary: fc.date({ noInvalidDate: false }).map((d) => (Number.isNaN(+d) ? 'x' : d.toISOString())),
    },
    { weight: 2, arbitrary: hostileDate() },
    { weight: 1, arbitrary: fc.integer({ min: 150, max: 5000 }).map((n) => 'a'.repeat(n)) },
  );
}

/** Dates at and past the edges analytics accepts: 1969 … 10000, day-only or timestamps with offsets. */
export const EDGE_DATES = [
  '1969-12-31',
  '1970-01-01',
  '1970-01-01T00:00:00+01:00',
  '1970-01-01T00:00:00-14:00',
  '9999-12-30',
  '9999-12-30T23:59:59.999Z',
  '9999-12-31',
  '9999-12-31T00:00:00.000Z',
  '9999-12-31T23:59:59.999Z',
  '9999-12-31T23:59:59.999-23:59',
  '9999-12-31T23:59+23:59',
  '10000-01-01',
  '+010000-01-01T00:00:00.000Z',
  '0000-01-01',
  '-000001-01-01T00:00:00.000Z',
];

export function hostileDate(): fc.Arbitrary<string> {
  const two = (n: number) => String(n).padStart(2, '0');
  const generated = fc
    .record({
      year: fc.oneof(fc.integer({ min: 1960, max: 1971 }), fc.integer({ min: 9990, max: 10_001 })),
      month: fc.integer({ min: 1, max: 12 }),
      day: fc.integer({ min: 1, max: 31 }),
      time: fc.option(
        fc.record({
          hour: fc.integer({ min: 0, max: 23 }),
          zone: fc.constantFrom('Z', '', '+23:59', '-23:59', '+01:00', '-12:00'),
        }),
      ),
    })
    .map(({ year, month, day, time }) => {
      const date = `${String(year).padStart(4, '0')}-${two(month)}-${two(day)}`;
      return time === null ? date : `${date}T${two(time.hour)}:59:59.999${time.zone}`;
    });
  return fc.oneof(fc.constantFrom(...EDGE_DATES), generated);
}

/** Percent-encoded, raw (only what a client cannot put in a URL is encoded), or broken escapes. */
export function urlPart(text: fc.Arbitrary<string>): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 5, arbitrary: text.map((t) => encodeURIComponent(wellFormed(t))) },
    { weight: 2, arbitrary: text.map(rawUrlText) },
    {
      weight: 1,
      arbitrary: fc.constantFrom('%', '%zz', '%ff%fe', '%c0%af', '%e0%80', '%ED%A0%80', '%00', '%2e%2e'),
    },
  );
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const wellFormed = (text: string) => text.replace(LONE_SURROGATE, '\ufffd');

// A backslash stays encoded too: the in-process injector parses URLs as WHATWG does, where `/\/` is a
// scheme-relative URL without a host, so it could never carry such a path to the service.
function rawUrlText(text: string): string {
  return Array.from(wellFormed(text), (c) =>
    /^[\x21-\x7e]$/.test(c) && c !== '#' && c !== '\\' ? c : encodeURIComponent(c),
  ).join('');
}

/** A JSON value, with big integers kept exact (serialized by jsonText). */
export function hostileValue(known: KnownValues): fc.Arbitrary<unknown> {
  const leaf = fc.oneof(
    hostileText(known),
    fc.integer(),
    fc.double(),
    fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
    fc.boolean(),
    fc.constant(null),
  );
  return fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      fc.array(tie('value'), { maxLength: 4 }),
      fc.dictionary(fc.constantFrom('a', 'add', 'remove', '__proto__', 'constructor'), tie('value'), {
        maxKeys: 3,
      }),
    ),
  })).value;
}

/** A path parameter of the kind its name suggests (`:vault`, `:nonce`, `:id`, …), URL-encoded. */
export function plausibleParam(name: string, known: KnownValues): fc.Arbitrary<string> {
  if (/nonce|index/i.test(name)) return fc.constantFrom(...known.numbers);
  if (/id|signature/i.test(name))
    return fc.constantFrom(...known.ids, ...known.addresses).map(encodeURIComponent);
  return fc.constantFrom(...known.addresses);
}

/** A value of the kind a field's name suggests, so whole bodies are sometimes valid and reach the domain. */
function plausibleValue(name: string, known: KnownValues): fc.Arbitrary<unknown> {
  const address = fc.constantFrom(...known.addresses);
  if (/account|signer|vault|destination|authority|owner/i.test(name)) return address;
  if (/limit|amount/i.test(name))
    return fc.oneof(
      fc.constantFrom(...known.numbers),
      fc.bigInt({ min: 1n, max: 2n ** 64n - 1n }).map(String),
    );
  if (/paused/i.test(name)) return fc.boolean();
  if (/whitelist/i.test(name))
    return fc.record({
      add: fc.array(address, { maxLength: 2 }),
      remove: fc.array(address, { maxLength: 2 }),
    });
  if (/name|label/i.test(name)) return fc.string({ minLength: 1, maxLength: 50 });
  return hostileText(known);
}

export type HostileBody =
  | { kind: 'none' }
  | { kind: 'json'; fields: Array<[string, unknown]> }
  | { kind: 'value'; value: unknown }
  | { kind: 'text'; text: string }
  | { kind: 'nested'; depth: number; open: string; close: string }
  | { kind: 'huge'; bytes: number }
  | { kind: 'invalidUtf8'; field: string; bytes: Uint8Array };

export function hostileBody(fieldNames: string[], known: KnownValues): fc.Arbitrary<HostileBody> {
  const names = fc.constantFrom(...fieldNames, '__proto__', 'constructor', 'prototype', 'extra', 'toString');
  return fc.oneof(
    { weight: 1, arbitrary: fc.constant({ kind: 'none' as const }) },
    {
      weight: 6,
      arbitrary: fc
        .array(fc.tuple(names, hostileValue(known)), { maxLength: 6 })
        .map((fields) => ({ kind: 'json' as const, fields })),
    },
    { weight: 2, arbitrary: hostileValue(known).map((value) => ({ kind: 'value' as const, value })) },
    {
      // Every field the route documents, plausible, with at most one swapped for a hostile value.
      weight: 4,
      arbitrary: fc
        .tuple(
          fc.tuple(...fieldNames.map((name) => plausibleValue(name, known))),
          fc.option(fc.tuple(names, hostileValue(known)), { freq: 2 }),
        )
        .map(([values, swap]) => {
          const fields: Array<[string, unknown]> = fieldNames.map((name, i) => [name, values[i]]);
          if (swap !== null) fields.push(swap);
          return { kind: 'json' as const, fields };
        }),
    },
    {
      weight: 2,
      arbitrary: fc
        .oneof(
          fc.constantFrom(
            '{',
            '{"a":',
            '[1,]',
            '{"a":1,}',
            "{'a':1}",
            'nul',
            'NaN',
            '\uFEFF{}',
            '{"a":1}{"b":2}',
            '{"__proto__":{"vkPolluted":1}}',
            '{"constructor":{"prototype":{"vkPolluted":1}}}',
            '{"a":"\\ud800"}',
            '{"a":1e400}',
            '{"a":1,"a":2}',
            '"string"',
            '123',
            '',
          ),
          fc.string({ maxLength: 60 }),
        )
        .map((text) => ({ kind: 'text' as const, text })),
    },
    {
      weight: 1,
      arbitrary: fc
        .record({
          depth: fc.integer({ min: 100, max: 12_000 }),
          pair: fc.constantFrom(['[', ']'], ['{"a":', '}'], ['{"name":[', ']}']),
        })
        .map(({ depth, pair }) => ({ kind: 'nested' as const, depth, open: pair[0]!, close: pair[1]! })),
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 60 * 1024, max: 300 * 1024 })
        .map((bytes) => ({ kind: 'huge' as const, bytes })),
    },
    {
      weight: 1,
      arbitrary: fc
        .record({
          field: names,
          bytes: fc
            .uint8Array({ minLength: 1, maxLength: 12 })
            .map((b) => Uint8Array.from([0xff, ...b, 0xc3])),
        })
        .map(({ field, bytes }) => ({ kind: 'invalidUtf8' as const, field, bytes })),
    },
  );
}

/** The bytes of a body (big integers written as exact JSON number literals). */
export function bodyBytes(body: HostileBody): Buffer | undefined {
  switch (body.kind) {
    case 'none':
      return undefined;
    case 'json': {
      const object: Record<string, unknown> = Object.create(null);
      for (const [key, value] of body.fields) object[key] = value;
      return Buffer.from(jsonText(object));
    }
    case 'value':
      return Buffer.from(jsonText(body.value));
    case 'text':
      return Buffer.from(body.text);
    case 'nested':
      return Buffer.from(body.open.repeat(body.depth) + body.close.repeat(body.depth));
    case 'huge':
      return Buffer.from(`{"name":"${'a'.repeat(body.bytes)}"}`);
    case 'invalidUtf8':
      return Buffer.concat([Buffer.from(`{"${body.field}":"`), body.bytes, Buffer.from('"}')]);
  }
}

export function jsonText(value: unknown): string {
  return JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? `__big__${v}__` : v)).replace(
    /"__big__(-?\d+)__"/g,
    '$1',
  );
}

/** Header values a real HTTP parser lets through: visible ASCII, spaces and obs-text. */
const headerText = fc.string({
  unit: fc.integer({ min: 0x20, max: 0xff }).map((c) => String.fromCharCode(c === 0x7f ? 0x20 : c)),
  maxLength: 120,
});

export function hostileHeaders(known: KnownValues): fc.Arbitrary<Record<string, string>> {
  const value = fc.oneof(
    headerText,
    hostileText(known).map((t) => t.replace(/[^\x20-\x7e]/g, '?')),
  );
  return fc.record(
    {
      'content-type': fc.oneof(
        { weight: 12, arbitrary: fc.constant('application/json') },
        { weight: 3, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
        { weight: 1, arbitrary: headerText },
      ),
      'x-wallet-address': fc.oneof(fc.constantFrom(...known.addresses), value),
      'x-signature': value,
      'x-message': fc.oneof(
        value,
        fc.constantFrom(
          'base64:',
          'base64:%%%',
          '%E0%A4%A',
          'Sign this message to authenticate with Vaultkeeper.\\n\\nTimestamp: 1',
        ),
      ),
      'x-request-id': value,
      'last-event-id': fc.oneof(fc.constantFrom('-1', '0', '1e21', '9007199254740993', 'NaN'), value),
      'x-forwarded-for': value,
      accept: fc.constantFrom('*/*', 'text/html', 'application/json', 'text/event-stream', 'image/png'),
      'accept-encoding': fc.constantFrom('gzip', 'br', 'identity;q=0', '*'),
      'content-encoding': fc.constantFrom('gzip', 'deflate', 'identity', 'x-unknown'),
      authorization: value,
      cookie: value,
      origin: fc.constantFrom('https://evil.example', 'null', 'http://localhost'),
      'if-none-match': value,
      range: fc.constantFrom('bytes=0-0', 'bytes=-1', 'bytes=99999999999-', 'bytes=a-b'),
    },
    { requiredKeys: ['content-type'] },
  );
}
