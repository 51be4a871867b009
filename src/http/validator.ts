// TypeBox validation with strict integers in query strings and path parameters: TypeBox's conversion
// would read "1.5" as 1 and "0x10" as 16, where a client mistake must be a VALIDATION_ERROR.
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
        error: withoutShadowIssues([...(direct.Errors(input) as Iterable<ValidationIssue>)]) as never,
      };
    }
    const result = validate(value) as { value?: unknown; error?: Iterable<ValidationIssue> };
    if (result.error === undefined) return result as never;
    return { error: withoutShadowIssues([...result.error]) as never };
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
