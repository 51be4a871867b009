// Writes docs/openapi.json from the route schemas (npm run openapi); `--check` exits 1 when the
// committed document differs from what the code generates (CI's drift check); `--validate` exits 1
// when the generated document is not a valid OpenAPI 3.1 document (see openapi-validation.ts).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { root, runWithDocsApp } from './docs-app.js';
import { openApiProblems } from './openapi-validation.js';

const target = resolve(root, 'docs/openapi.json');

/** The document as the code generates it, independent of the caller's environment. */
const generate = (): Promise<string> =>
  runWithDocsApp((app) => `${JSON.stringify(app.swagger(), null, 2)}\n`);

function firstDifference(a: string, b: string): string {
  const left = a.split('\n');
  const right = b.split('\n');
  const line = left.findIndex((text, i) => text !== right[i]);
  const at = line === -1 ? left.length : line;
  return `line ${at + 1}:\n  committed: ${right[at] ?? '(end of file)'}\n  generated: ${left[at] ?? '(end of file)'}`;
}

const generated = await generate();
if (process.argv.includes('--validate')) {
  const problems = await openApiProblems(JSON.parse(generated));
  if (problems.length > 0) {
    process.stderr.write(`the generated OpenAPI document is invalid:\n${problems.join('\n')}\n`);
    process.exit(1);
  }
  process.stdout.write('the generated OpenAPI document is valid OpenAPI 3.1\n');
}
if (process.argv.includes('--check')) {
  const committed = existsSync(target) ? readFileSync(target, 'utf8') : '';
  if (committed !== generated) {
    process.stderr.write(
      `docs/openapi.json is out of date with the route schemas; run \`npm run openapi\` and commit it.\nFirst difference at ${firstDifference(generated, committed)}\n`,
    );
    process.exit(1);
  }
  process.stdout.write('docs/openapi.json matches the route schemas\n');
} else {
  writeFileSync(target, generated);
  process.stdout.write(`wrote ${target}\n`);
}
process.exit(0);
