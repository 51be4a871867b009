// Response serializers compiled once per distinct schema and process. Many routes answer with the same
// schema (the error envelope under every error status, the shared page and vault shapes), and
// fast-json-stringify's compile was the larger part of building the app: the service compiles about
// half as many serializers at start, and an app built again in one process (the tests) compiles none.
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler';

type SerializerFactory = ReturnType<typeof SerializerSelector>;
type Serializer = ReturnType<ReturnType<SerializerFactory>>;

const compile = SerializerSelector();
const compiled = new Map<string, Serializer>();

/**
 * Fastify's default serializer factory behind a cache keyed by what decides the code fast-json-stringify
 * writes: the schema, the shared schemas its $refs may name, and the serializer options.
 */
export const cachedSerializers: SerializerFactory = (externalSchemas, options) => {
  const compiler = compile(externalSchemas, options);
  const context = JSON.stringify([externalSchemas ?? null, options ?? null]);
  return (route) => {
    const key = `${context}\n${JSON.stringify(route.schema)}`;
    let serializer = compiled.get(key);
    if (serializer === undefined) {
      serializer = compiler(route);
      compiled.set(key, serializer);
    }
    return serializer;
  };
};
