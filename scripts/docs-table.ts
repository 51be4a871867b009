// What the documentation generators share (npm run docs:config, npm run docs:limits): write the
// document with its generated table, or with `--check` exit 1 when the committed one differs (CI).
import { readFileSync, writeFileSync } from 'node:fs';

const fail = (message: string): never => {
  process.stderr.write(`${message}\n`);
  process.exit(1);
};

/**
 * `render` returns the document with the table replaced, or null when its markers are missing;
 * `name` is the document's repository path, `source` what the table is generated from, `command` the npm script.
 */
export async function runDocsTable(
  target: string,
  render: (document: string) => string | null | Promise<string | null>,
  { name, source, command }: { name: string; source: string; command: string },
): Promise<void> {
  const committed = readFileSync(target, 'utf8');
  const generated = await render(committed);
  if (generated === null) return fail(`${name} has no table markers for ${command}`);
  if (process.argv.includes('--check')) {
    if (generated !== committed)
      fail(`${name} is out of date with ${source}; run \`${command}\` and commit it`);
    process.stdout.write(`${name} matches ${source}\n`);
  } else {
    writeFileSync(target, generated);
    process.stdout.write(`wrote ${target}\n`);
  }
}
