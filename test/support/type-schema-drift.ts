// Compares TypeScript types a package declares with JSON Schemas (the served OpenAPI document): property
// names, which are optional, and the kinds of values (string, number, boolean, null, array, object,
// enum values), recursively. What differs is listed as `path: difference`.
import ts from 'typescript';

export type JsonSchema = Record<string, unknown>;

/** Resolves `#/components/schemas/X` references against the document. */
export type SchemaResolver = (schema: JsonSchema) => JsonSchema;

const kindsOfSchema = (schema: JsonSchema): Set<string> => {
  if (Array.isArray(schema.enum)) return new Set(schema.enum.map((v) => (v === null ? 'null' : typeof v)));
  if ('const' in schema) return new Set([typeof schema.const]);
  const types = Array.isArray(schema.type) ? schema.type : schema.type === undefined ? [] : [schema.type];
  return new Set(types.map((t) => (t === 'integer' ? 'number' : String(t))));
};

export function createTypeSchemaComparer(program: ts.Program) {
  const checker = program.getTypeChecker();

  const kindOf = (type: ts.Type): string => {
    if (type.flags & ts.TypeFlags.StringLike) return 'string';
    if (type.flags & ts.TypeFlags.NumberLike) return 'number';
    if (type.flags & ts.TypeFlags.BooleanLike) return 'boolean';
    if (type.flags & ts.TypeFlags.Null) return 'null';
    if (type.flags & ts.TypeFlags.Undefined) return 'undefined';
    if (type.flags & (ts.TypeFlags.Unknown | ts.TypeFlags.Any)) return 'unknown';
    // `string & {}` (an open string union member) is a string.
    if (type.isIntersection() && type.types.some((t) => t.flags & ts.TypeFlags.StringLike)) return 'string';
    if (checker.isArrayType(type)) return 'array';
    return 'object';
  };

  const members = (type: ts.Type): ts.Type[] => (type.isUnion() ? type.types : [type]);

  function compare(type: ts.Type, schema: JsonSchema, path: string, resolve: SchemaResolver, out: string[]) {
    const resolved = resolve(schema);
    const branches = (resolved.anyOf ?? resolved.oneOf) as JsonSchema[] | undefined;
    const tsMembers = members(type).filter((t) => kindOf(t) !== 'undefined');
    if (tsMembers.some((t) => kindOf(t) === 'unknown')) return;
    if (branches !== undefined) {
      const objects = tsMembers.filter((t) => kindOf(t) === 'object');
      const objectBranches = branches
        .map(resolve)
        .filter((b) => kindsOfSchema(b).has('object') || b.properties);
      if (objects.length === objectBranches.length && objects.length > 1) {
        for (const [i, t] of objects.entries()) compare(t, objectBranches[i]!, `${path}|${i}`, resolve, out);
        return;
      }
      const tsKinds = new Set(tsMembers.map(kindOf));
      const schemaKinds = new Set(branches.flatMap((b) => [...kindsOfSchema(resolve(b))]));
      if ([...tsKinds].sort().join() !== [...schemaKinds].sort().join())
        out.push(`${path}: type ${[...tsKinds].sort()} vs schema ${[...schemaKinds].sort()}`);
      return;
    }
    const schemaKinds = kindsOfSchema(resolved);
    if (resolved.properties !== undefined) schemaKinds.add('object');
    const tsKinds = new Set(tsMembers.map(kindOf));
    if (schemaKinds.size > 0 && [...tsKinds].sort().join() !== [...schemaKinds].sort().join()) {
      out.push(`${path}: type ${[...tsKinds].sort()} vs schema ${[...schemaKinds].sort()}`);
      return;
    }
    if (Array.isArray(resolved.enum)) {
      const literals = tsMembers
        .filter((t) => t.isStringLiteral())
        .map((t) => (t as ts.StringLiteralType).value);
      const open = tsMembers.some((t) => kindOf(t) === 'string' && !t.isStringLiteral());
      const values = resolved.enum.filter((v) => v !== null).map(String);
      if (!open && literals.sort().join() !== values.sort().join())
        out.push(`${path}: values ${literals} vs schema enum ${values}`);
    }
    for (const member of tsMembers) {
      if (kindOf(member) === 'array' && resolved.items !== undefined) {
        const element = checker.getTypeArguments(member as ts.TypeReference)[0];
        if (element) compare(element, resolved.items as JsonSchema, `${path}[]`, resolve, out);
      }
      if (kindOf(member) === 'object' && resolved.properties !== undefined) {
        compareObject(member, resolved, path, resolve, out);
      }
    }
  }

  function compareObject(
    type: ts.Type,
    schema: JsonSchema,
    path: string,
    resolve: SchemaResolver,
    out: string[],
  ) {
    const properties = schema.properties as Record<string, JsonSchema>;
    const required = new Set((schema.required as string[] | undefined) ?? []);
    const declared = new Map(checker.getPropertiesOfType(type).map((p) => [p.getName(), p]));
    for (const name of Object.keys(properties)) {
      if (!declared.has(name)) out.push(`${path}.${name}: in the schema, not in the type`);
    }
    for (const [name, symbol] of declared) {
      const where = `${path}.${name}`;
      const property = properties[name];
      if (property === undefined) {
        out.push(`${where}: in the type, not in the schema`);
        continue;
      }
      const optional = (symbol.flags & ts.SymbolFlags.Optional) !== 0;
      if (optional === required.has(name))
        out.push(`${where}: ${optional ? 'optional' : 'required'} in the type, not in the schema`);
      compare(checker.getTypeOfSymbol(symbol), property, where, resolve, out);
    }
  }

  /** The differences between an exported type of `file` and a schema. */
  return (file: string, typeName: string, schema: JsonSchema, resolve: SchemaResolver): string[] => {
    const source = program.getSourceFile(file);
    if (source === undefined) throw new Error(`${file} is not in the program`);
    const exported = checker.getExportsOfModule(checker.getSymbolAtLocation(source)!);
    const symbol = exported.find((s) => s.getName() === typeName);
    if (symbol === undefined) return [`${typeName}: not exported`];
    const target = symbol.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(symbol) : symbol;
    const out: string[] = [];
    compare(checker.getDeclaredTypeOfSymbol(target), schema, typeName, resolve, out);
    return out;
  };
}
