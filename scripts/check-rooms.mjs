// CI (npm run check:rooms): the fences between the repository's rooms, read from every relative import
// (static, `export … from` and dynamic `import()`) in the rooms' TypeScript and JavaScript files. Unit
// tests beside their code (`*.test.ts`) may use the test harness; they ship with nothing. One fence inside
// the harness: test files (test/**/*.test.ts, src/**/*.test.ts) take their world from useTestApps
// (test/support/test-apps.ts), never from the set-up primitives under it, except the files in
// SETUP_EXCEPTIONS. docs/ARCHITECTURE.md, "Rooms of the repository", says what each room is for.
// Exits 1 listing each crossing.
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

/**
 * The set-up primitives test files may not import (module without extension: the names, or every one
 * when null): useTestApps builds the database, the apps, the dependencies and the ingestor from them.
 */
export const SETUP_PRIMITIVES = [
  { module: 'test/support/app', names: ['createTestApp', 'createTestDeps'] },
  { module: 'test/support/database', names: ['createTestStorage'] },
  { module: 'test/support/ingestor', names: null },
];

/** Test files that set up their own database, each for its reason (also in docs: CONTRIBUTING.md). */
export const SETUP_EXCEPTIONS = [
  // The ingestor runs as a child process that is SIGKILLed and restarted: its database is one a second
  // process opens (a PGlite data directory, or a fresh PostgreSQL database named by URL).
  'test/integration/alerts-crash.test.ts',
  // The delivery worker runs as a child process that is SIGKILLed; the test reopens the same data
  // directory (or PostgreSQL database) afterwards and runs a worker in process on it.
  'test/integration/webhooks-crash.test.ts',
  // The CLI runs as child processes on a PGlite data directory or a PostgreSQL database named by URL,
  // which the test opens only while no CLI process holds it.
  'test/integration/cli.test.ts',
  // `vaultkeeper listen` and the service run as child processes sharing a PostgreSQL database by URL.
  'test/integration/cli-listen.test.ts',
];

const SOURCE = /\.(ts|tsx|mts|mjs|js)$/;
const TEST = /\.test\.[cm]?[jt]sx?$/;
const SKIPPED = new Set(['node_modules', 'dist']);
const IMPORT = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"](\.{1,2}\/[^'"]+)['"]/gm;
/** A static import or re-export with its clause, or a dynamic import (no clause: it may take anything). */
const IMPORT_CLAUSE =
  /^\s*(?:import|export)\b([^;'"]*?)\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]|\bimport\s*\(\s*['"](\.{1,2}\/[^'"]+)['"]/gm;

/** Files under `dir` (skipping node_modules and dist) whose name `wanted` accepts. */
function filesUnder(dir, wanted) {
  let entries;
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return SKIPPED.has(entry.name) ? [] : filesUnder(path, wanted);
    return wanted(entry.name) ? [path] : [];
  });
}

const sourcesUnder = (dir) => filesUnder(dir, (name) => SOURCE.test(name) && !TEST.test(name));
const testsUnder = (dir) => filesUnder(dir, (name) => /\.test\.ts$/.test(name));

/**
 * The values a clause takes (`{ a, type B, c as d }` gives a and c), or null when it may take any
 * (a namespace, a default, a dynamic import); a clause of types only takes none.
 */
function valuesOf(clause) {
  if (clause === undefined) return null;
  const text = clause.trim();
  if (/^type\b/.test(text)) return [];
  const braces = text.match(/^\{([^}]*)\}$/);
  if (braces === null) return null;
  return braces[1]
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '' && !/^type\s/.test(part))
    .map((part) => part.split(/\s+as\s+/)[0]);
}

/** Test files that import a set-up primitive: "<file>:<line> imports <names> from <spec> (why)". */
function setupCrossings(repository) {
  const problems = [];
  const tests = [...testsUnder(join(repository, 'test')), ...testsUnder(join(repository, 'src'))];
  for (const file of tests) {
    const path = relative(repository, file).split(sep).join('/');
    if (SETUP_EXCEPTIONS.includes(path)) continue;
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(IMPORT_CLAUSE)) {
      const spec = match[2] ?? match[3];
      const target = relative(repository, resolve(dirname(file), spec))
        .split(sep)
        .join('/')
        .replace(/\.[cm]?[jt]sx?$/, '');
      const primitive = SETUP_PRIMITIVES.find(({ module }) => module === target);
      if (primitive === undefined) continue;
      const values = valuesOf(match[2] === undefined ? undefined : match[1]);
      const taken =
        values === null
          ? ['the module']
          : primitive.names === null
            ? values
            : values.filter((v) => primitive.names.includes(v));
      if (taken.length === 0) continue;
      const line =
        text.slice(0, match.index).split('\n').length + (match[0].match(/^\s*/)[0].split('\n').length - 1);
      problems.push(
        `${path}:${line} imports ${taken.join(', ')} from ${spec} (test files take their world from useTestApps, test/support/test-apps.ts)`,
      );
    }
  }
  return problems;
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
  return [...problems, ...setupCrossings(repository)];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const problems = problemsOf();
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) {
    console.error(`${problems.length} import(s) cross a room's fence (docs/ARCHITECTURE.md)`);
    process.exit(1);
  }
}
