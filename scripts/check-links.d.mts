// Types of check-links.mjs for the TypeScript that imports it (test/integration/docs.test.ts).
export function anchorsOf(markdown: string): Set<string>;
export function problemsOf(file: string): string[];
export function documents(): string[];
