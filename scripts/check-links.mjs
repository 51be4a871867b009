// CI (npm run check:links): every relative link in README.md, CONTRIBUTING.md and docs/*.md points at a
// file that exists, every #anchor names a heading of its target, and every repository path named in
// backticks (`src/config.ts`, `docs/examples/…`) or as docs/NAME.md in running text exists. Exits 1 listing each broken one.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The top-level folders and files a backticked path must start with to count as a repository path. */
const ROOTS = readdirSync(root).filter((name) => !name.startsWith('.') || name === '.ci');
const IGNORED_ROOTS = new Set(['node_modules', 'dist', 'data', 'test-artifacts']);

/** GitHub's heading anchors: lowercase, punctuation dropped, spaces to hyphens, repeats numbered. */
export function anchorsOf(markdown) {
  const anchors = new Set();
  const seen = new Map();
  for (const line of withoutCode(markdown).split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const text = heading[1]
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/<[^>]+>/g, '')
      .toLowerCase();
    const slug = text.replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/ /g, '-');
    const count = seen.get(slug) ?? 0;
    seen.set(slug, count + 1);
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
  }
  return anchors;
}

/** The text with fenced code blocks blanked (line count kept), so their contents are not checked. */
function withoutCode(markdown) {
  let fenced = false;
  return markdown
    .split('\n')
    .map((line) => {
      if (/^\s*(```|~~~)/.test(line)) {
        fenced = !fenced;
        return '';
      }
      return fenced ? '' : line;
    })
    .join('\n');
}

/** Relative link targets: [text](target) and [text]: target, without web, mail or in-page-less schemes. */
function linksOf(text) {
  const links = [];
  for (const match of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) links.push(match[1]);
  for (const match of text.matchAll(/^\s*\[[^\]]+\]:\s*(\S+)/gm)) links.push(match[1]);
  return links.filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

/** Backticked spans that name a file or folder of the repository (`src/…`, `docs/…`, `package.json`). */
function repositoryPathsOf(text) {
  const paths = [];
  for (const match of text.matchAll(/(?<!`)`([^`\n]+)`(?!`)/g)) {
    const span = match[1].trim();
    if (!/^[\w.@-]+(\/[\w.@-]+)*\/?$/.test(span) || !span.includes('/')) continue;
    const first = span.split('/')[0];
    if (ROOTS.includes(first) && !IGNORED_ROOTS.has(first)) paths.push(span);
  }
  // A document named in running text ("see docs/SOAK.md") counts too, backticks or not.
  for (const match of text.matchAll(/(?<![\w/.(-])docs\/[\w-]+\.md\b/g)) paths.push(match[0]);
  return [...new Set(paths)];
}

const headingCache = new Map();
function headingsOf(file) {
  if (!headingCache.has(file)) headingCache.set(file, anchorsOf(readFileSync(file, 'utf8')));
  return headingCache.get(file);
}

/** Every broken link and path of one Markdown file, as `file:line: what`. */
export function problemsOf(file) {
  const problems = [];
  const lines = withoutCode(readFileSync(file, 'utf8')).split('\n');
  const name = relative(root, file);
  lines.forEach((line, index) => {
    const where = `${name}:${index + 1}`;
    for (const link of linksOf(line)) {
      const [pathPart, anchor] = link.split('#');
      const target = pathPart === '' ? file : resolve(dirname(file), decodeURIComponent(pathPart));
      if (!existsSync(target)) {
        problems.push(`${where}: ${link}: no such file`);
        continue;
      }
      if (anchor === undefined || anchor === '') continue;
      if (!target.endsWith('.md') || statSync(target).isDirectory()) continue;
      if (!headingsOf(target).has(decodeURIComponent(anchor).toLowerCase())) {
        problems.push(`${where}: ${link}: no heading #${anchor} in ${relative(root, target)}`);
      }
    }
    for (const path of repositoryPathsOf(line)) {
      if (!existsSync(join(root, path)))
        problems.push(`${where}: \`${path}\`: no such path in the repository`);
    }
  });
  return problems;
}

export function documents() {
  const docs = readdirSync(join(root, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .map((name) => join(root, 'docs', name));
  return [join(root, 'README.md'), join(root, 'CONTRIBUTING.md'), ...docs];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const files = documents();
  const problems = files.flatMap(problemsOf);
  if (problems.length > 0) {
    process.stderr.write(`${problems.join('\n')}\n${problems.length} broken links or paths\n`);
    process.exit(1);
  }
  process.stdout.write(`links and paths of ${files.length} documents resolve\n`);
}
