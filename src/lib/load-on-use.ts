// Packages only some configurations use (Redis, SMTP, pretty logs) load at first use, so a service
// configured without them never holds their code and data in memory.
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The CommonJS package `name`, loaded (once) when first asked for. */
export function loadOnUse<T>(name: string): T {
  return require(name) as T;
}
