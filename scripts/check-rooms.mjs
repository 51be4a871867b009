// CI (npm run check:rooms): the fences between the repository's rooms, read from every relative import
// (static, `export … from` and dynamic `import()`) in the rooms' TypeScript and JavaScript files. Unit
// tests beside their code (`*.test.ts`) may use the test harness; they ship with nothing.
// docs/ARCHITECTURE.md, "Rooms of the repository", says what each room is for. Exits 1 listing each crossing.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** What a room's files must not import, by the top-level folder of the target. */
export const FENCES = [
  { room: 'src', forbidden: ['dev', 'test', 'bench', 'scripts', 'web'], why: 'the service ships alone' },
  {
    room: 'web',
    forbidden: ['src', 'dev', 'test', 'bench', 'scripts'],
    why: 'the browser app uses the packages',
  },
  {
    room: 'dev',
    forbidden: ['src', 'test', 'bench', 'scripts', 'web'],
    why: 'the team’s tools play the network edges and run the service as a process',
  },
];

const SOURCE = /\.(ts|tsx|mts|mjs|js)$/;
const TEST = /\.test\.[cm]?[jt]sx?$/;
const SKIPPED = new Set(['node_modules', 'dist']);
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;

function sourcesUnder(dir) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : sourcesUnder(path);
    return SOURCE.test(entry.name) && !TEST.test(entry.name) ? [path] : [];
  });
}

/** The top-level folder an import of `file` lands in, or undefined when it stays at the root. */
function roomOf(repository, target) {
  const path = relative(repository, target);
  return path.startsWith('..') || !path.includes(sep) ? undefined : path.split(sep)[0];
}

/** Every crossing in the tree at `repository`: "<file>:<line> imports <spec> (<room>/ must not import <room>/: why)". */
export function problemsOf(repository = root) {
  const problems = [];
  for (const { room, forbidden, why } of FENCES) {
    for (const file of sourcesUnder(join(repository, room))) {
      const text = readFileSync(file, 'utf8');
      for (const match of text.matchAll(IMPORT)) {
        const target = roomOf(repository, resolve(dirname(file), match[1]));
        if (target === undefined || !forbidden.includes(target)) continue;
        const line = text.slice(0, match.index).split('\n').length;
        problems.push(
          `${relative(repository, file)}:${line} imports ${match[1]} (${room}/ must not import ${target}/: ${why})`,
        );
      }
    }
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const problems = problemsOf();
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) {
    console.error(`${problems.length} import(s) cross a room's fence (docs/ARCHITECTURE.md)`);
    process.exit(1);
  }
}
