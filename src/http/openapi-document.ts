// The OpenAPI document as generators want it, made from what the routes declare: every schema with a
// `title` becomes a named schema under components.schemas (referenced by $ref wherever it appears),
// custom formats become the patterns they stand for, and the webhook payloads are listed under
// `webhooks` (OpenAPI 3.1). CONTRIBUTING.md, "OpenAPI: what a route declares", lists the conventions a route follows.

type Json = Record<string, unknown>;

/** Formats the service validates with its own code, as patterns any validator understands. */
const CUSTOM_FORMATS: Readonly<Record<string, string>> = {
  'solana-address': '^[1-9A-HJ-NP-Za-km-z]{32,44}$',
  'solana-signature': '^[1-9A-HJ-NP-Za-km-z]{64,88}$',
  // A transaction's record uuid (a list item's id) or its signature.
  'transaction-key':
    '^([1-9A-HJ-NP-Za-km-z]{64,88}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$',
  // A vault address or its record uuid.
  'vault-id':
    '^([1-9A-HJ-NP-Za-km-z]{32,44}|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$',
};

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** JSON text with sorted keys: two schemas are the same when these match. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (!isObject(value)) return JSON.stringify(value);
  const keys = Object.keys(value).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical(value[k])}`).join(',')}}`;
}

/** A named schema's body, compared without its description (a response may describe it its own way). */
function bodyOf(schema: Json): Json {
  const { description: _description, title: _title, ...body } = schema;
  return body;
}

/**
 * Replaces, children first, every schema carrying a `title` by a $ref to components.schemas[title].
 * Two different schemas under one title are a mistake in the code: generation stops and names it.
 */
function hoistNamedSchemas(node: unknown, named: Map<string, Json>): unknown {
  if (Array.isArray(node)) return node.map((item) => hoistNamedSchemas(item, named));
  if (!isObject(node)) return node;
  const copy: Json = {};
  for (const [key, value] of Object.entries(node)) copy[key] = hoistNamedSchemas(value, named);
  const title = copy.title;
  if (typeof title !== 'string' || copy.$ref !== undefined) return copy;
  const known = named.get(title);
  if (known === undefined) named.set(title, copy);
  else if (canonical(bodyOf(known)) !== canonical(bodyOf(copy))) {
    throw new Error(`OpenAPI: two different schemas are named ${title}; give one another title`);
  }
  return { $ref: `#/components/schemas/${title}` };
}

/** `format: solana-address` and the like become patterns (and stay explained in the description). */
function replaceCustomFormats(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(replaceCustomFormats);
  if (!isObject(node)) return node;
  const copy: Json = {};
  for (const [key, value] of Object.entries(node)) copy[key] = replaceCustomFormats(value);
  const format = typeof copy.format === 'string' ? copy.format : undefined;
  const pattern = format === undefined ? undefined : CUSTOM_FORMATS[format];
  if (pattern !== undefined) {
    delete copy.format;
    copy.pattern ??= pattern;
  }
  return copy;
}

export interface DocumentParts {
  /** OpenAPI 3.1 `webhooks`: one entry per event a subscription receives. */
  webhooks: Json;
}

/** The document fastify-swagger built, made generator-friendly (see the file's header). */
export function finishOpenApiDocument(document: Json, parts: DocumentParts): Json {
  const named = new Map<string, Json>();
  const components = (document.components ?? {}) as Json;
  const existing = (components.schemas ?? {}) as Json;
  const paths = hoistNamedSchemas(replaceCustomFormats(document.paths), named);
  const webhooks = hoistNamedSchemas(replaceCustomFormats(parts.webhooks), named);
  const schemas: Json = replaceCustomFormats(existing) as Json;
  for (const [title, schema] of named) {
    if (schemas[title] !== undefined) throw new Error(`OpenAPI: ${title} is named twice`);
    const { title: _title, ...rest } = schema;
    schemas[title] = rest;
  }
  const sorted = Object.fromEntries(Object.entries(schemas).sort(([a], [b]) => a.localeCompare(b)));
  return { ...document, paths, webhooks, components: { ...components, schemas: sorted } };
}
