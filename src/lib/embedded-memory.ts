// V8 settings for the embedded default (docs/OPERATIONS.md, The embedded default): memory over peak speed.
import { setFlagsFromString } from 'node:v8';

/**
 * V8 flags that keep a PGlite service small; they take effect when set at run time, so `npm start`
 * and `node dist/main.js` both get them. Each is worth about 30–45 MB of resident memory.
 */
export const EMBEDDED_V8_FLAGS = [
  // The young generation stays at its initial size (1 MB semi-spaces) instead of growing to 16 MB ones.
  '--semi-space-growth-factor=1',
  // PostgreSQL's WebAssembly runs on baseline (Liftoff) code only: no optimised copies of hot functions.
  '--liftoff-only',
] as const;

/** Applies EMBEDDED_V8_FLAGS; call before the database opens (the WebAssembly is compiled then). */
export function useEmbeddedMemorySettings(): void {
  for (const flag of EMBEDDED_V8_FLAGS) setFlagsFromString(flag);
}
