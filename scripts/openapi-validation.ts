// Validates an OpenAPI 3.1 document: the specification's schema and rules through
// @readme/openapi-parser, plus path-template rules that validator does not enforce.
import { compileErrors, validate } from '@readme/openapi-parser';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

interface Parameter {
  in?: string;
  name?: string;
}
type PathItem = Partial<Record<(typeof METHODS)[number], { parameters?: Parameter[] }>> & {
  parameters?: Parameter[];
};
export interface OpenApiDocument {
  openapi?: string;
  paths?: Record<string, PathItem>;
  [key: string]: unknown;
}

const TEMPLATE_PARAM = /\{([^}]*)\}/g;

/** The names in a path template, in order (`/a/{x}/{y}` → x, y). */
function templateParams(path: string): string[] {
  return [...path.matchAll(TEMPLATE_PARAM)].map((match) => match[1] ?? '');
}

/**
 * Problems the schema validator lets through: templates that differ only in parameter names (which
 * OpenAPI forbids as identical paths), and operations whose `in: path` parameters differ from their
 * template's names.
 */
export function pathTemplateProblems(document: OpenApiDocument): string[] {
  const problems: string[] = [];
  const byShape = new Map<string, string>();
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    const shape = path.replace(TEMPLATE_PARAM, '{}');
    const earlier = byShape.get(shape);
    if (earlier === undefined) byShape.set(shape, path);
    else problems.push(`paths ${earlier} and ${path} are the same template with different parameter names`);

    const names = templateParams(path);
    if (new Set(names).size !== names.length) problems.push(`path ${path} repeats a parameter name`);
    const shared = (item.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name);
    for (const method of METHODS) {
      const operation = item[method];
      if (operation === undefined) continue;
      const declared = new Set([
        ...shared,
        ...(operation.parameters ?? []).filter((p) => p.in === 'path').map((p) => p.name),
      ]);
      for (const name of names) {
        if (!declared.has(name))
          problems.push(`${method.toUpperCase()} ${path} does not declare path parameter ${name}`);
      }
      for (const name of declared) {
        if (name === undefined || !names.includes(name)) {
          problems.push(
            `${method.toUpperCase()} ${path} declares path parameter ${name} that the template lacks`,
          );
        }
      }
    }
  }
  return problems;
}

/** Every problem with the document, as readable text; empty when it is a valid OpenAPI 3.1 document. */
export async function openApiProblems(document: OpenApiDocument): Promise<string[]> {
  const problems: string[] = [];
  if (typeof document.openapi !== 'string' || !document.openapi.startsWith('3.1.')) {
    problems.push(`expected an OpenAPI 3.1 document, got openapi: ${JSON.stringify(document.openapi)}`);
  }
  // The parser dereferences in place: give it a copy.
  const result = await validate(structuredClone(document) as Parameters<typeof validate>[0]);
  if (!result.valid) problems.push(compileErrors(result));
  problems.push(...pathTemplateProblems(document));
  return problems;
}
