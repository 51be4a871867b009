// TypeBox validation whose issues read well: a field restricted to a few values lists them, and query
// strings and path parameters get strict integers (TypeBox's conversion would read "1.5" as 1 and
// "0x10" as 16, where a client mistake must be a VALIDATION_ERROR).
import { type TSchema, TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';
import type { FastifySchemaCompiler } from 'fastify';
import { Compile } from 'typebox/compile';

const DECIMAL_INTEGER = /^-?[0-9]{1,16}$/;

interface ValidationIssue {
  keyword: string;
  instancePath: string;
  schemaPath?: string;
  params: Record<string, unknown>;
  message: string;
}

/** The app's compiler: TypeBox's, with issues that name the allowed values. */
export const validatorCompiler: FastifySchemaCompiler<TSchema> = (route) => {
  const validate = TypeBoxValidatorCompiler(route);
  return (value: unknown) => {
    const result = validate(value) as { value?: unknown; error?: Iterable<ValidationIssue> };
    if (result.error === undefined) return result as never;
    return { error: readableIssues(route.schema, [...result.error]) as never };
  };
};

export const strictValidatorCompiler: FastifySchemaCompiler<TSchema> = (route) => {
  const validate = TypeBoxValidatorCompiler(route);
  const parts = route.httpPart === 'querystring' || route.httpPart === 'params';
  const properties = (route.schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  const integerKeys = parts
    ? Object.entries(properties)
        .filter(([, schema]) => schema.type === 'integer')
        .map(([key]) => key)
    : [];

  // Strings and integers only (every path and most query schemas): the integers are converted here, so
  // the compiled check runs on the request's own object, without TypeBox's general conversion.
  const direct =
    parts &&
    Object.values(properties).every((schema) => schema.type === 'string' || schema.type === 'integer')
      ? Compile(route.schema)
      : null;

  return (value: unknown) => {
    const input = (value ?? {}) as Record<string, unknown>;
    for (const key of integerKeys) {
      const raw = input[key];
      // A repeated parameter arrives as an array: not an integer either.
      if (raw !== undefined && !(typeof raw === 'string' && DECIMAL_INTEGER.test(raw))) {
        return { error: [issue(`/${key}`, 'type', 'must be integer')] as never };
      }
    }
    if (direct !== null) {
      for (const key of integerKeys) if (input[key] !== undefined) input[key] = Number(input[key]);
      if (direct.Check(input)) return { value: input } as never;
      return {
        error: readableIssues(route.schema, [
          ...(direct.Errors(input) as Iterable<ValidationIssue>),
        ]) as never,
      };
    }
    const result = validate(value) as { value?: unknown; error?: Iterable<ValidationIssue> };
    if (result.error === undefined) return result as never;
    return { error: readableIssues(route.schema, [...result.error]) as never };
  };
};

function issue(instancePath: string, keyword: string, message: string): ValidationIssue {
  return { keyword, instancePath, params: {}, message };
}

/** `additionalProperties: false` reports each unknown field twice; keep the readable report. */
function withoutShadowIssues(issues: ValidationIssue[]): ValidationIssue[] {
  const hasAdditional = issues.some((i) => i.keyword === 'additionalProperties');
  return hasAdditional
    ? issues.filter((i) => !(i.keyword === 'boolean' && i.schemaPath?.endsWith('/additionalProperties')))
    : issues;
}

function readableIssues(schema: unknown, issues: ValidationIssue[]): ValidationIssue[] {
  return withAllowedValues(schema, withoutShadowIssues(issues));
}

const valueText = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));
const mustBeOneOf = (values: readonly unknown[]) =>
  `must be one of ${[...new Set(values)].map(valueText).join(', ')}`;

/**
 * An `enum`, or an `anyOf` whose branches are all constants (TypeBox's union of literals), reports one
 * issue per field listing the allowed values, instead of "must be equal to one of the allowed values"
 * or one "must be equal to constant" per branch. The values come from the schema, so they are all
 * there even when TypeBox stopped collecting issues.
 */
function withAllowedValues(schema: unknown, issues: ValidationIssue[]): ValidationIssue[] {
  const reported = new Set<string>();
  const out: ValidationIssue[] = [];
  for (const issue of issues) {
    const union = constantUnionOf(schema, issue);
    if (issue.keyword === 'enum' && Array.isArray(issue.params.allowedValues)) {
      out.push({ ...issue, message: mustBeOneOf(issue.params.allowedValues) });
    } else if (union === null) {
      out.push(issue);
    } else if (!reported.has(`${issue.instancePath}\n${union.path}`)) {
      reported.add(`${issue.instancePath}\n${union.path}`);
      const params = { allowedValues: union.values };
      out.push({
        keyword: 'enum',
        instancePath: issue.instancePath,
        schemaPath: union.path,
        params,
        message: mustBeOneOf(union.values),
      });
    }
  }
  return out;
}

/** The union of constants an issue belongs to (the anyOf itself, or a check of one of its branches). */
function constantUnionOf(
  schema: unknown,
  issue: ValidationIssue,
): { path: string; values: unknown[] } | null {
  const path =
    issue.keyword === 'anyOf' ? issue.schemaPath : /^(.*)\/anyOf\/[0-9]+$/.exec(issue.schemaPath ?? '')?.[1];
  if (path === undefined) return null;
  const branches = (schemaAt(schema, path) as { anyOf?: unknown } | undefined)?.anyOf;
  if (!Array.isArray(branches) || branches.length === 0) return null;
  const values: unknown[] = [];
  for (const branch of branches as Record<string, unknown>[]) {
    if ('const' in branch) values.push(branch.const);
    else if (Array.isArray(branch.enum)) values.push(...branch.enum);
    else if (branch.type === 'null') values.push(null);
    else return null;
  }
  return { path, values };
}

/** The subschema a `#/a/b` schema path points at, or undefined. */
function schemaAt(schema: unknown, pointer: string): unknown {
  if (!pointer.startsWith('#')) return undefined;
  let node = schema;
  for (const raw of pointer.slice(1).split('/').slice(1)) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
