// Types of check-rooms.mjs for the TypeScript that imports it (test/integration/rooms.test.ts).
export const FENCES: readonly { room: string; forbidden: readonly string[]; why: string }[];
export function problemsOf(repository?: string): string[];
export const SETUP_PRIMITIVES: readonly { module: string; names: readonly string[] | null }[];
export const SETUP_EXCEPTIONS: readonly string[];
