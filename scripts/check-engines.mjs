// Every production dependency (the installed tree of `dependencies`, transitively; optional ones when
// installed) must run on every Node version the project's own `engines.node` admits.
// Exits 1 naming each package whose `engines.node` does not cover that range.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import semver from 'semver';

const root = process.cwd();
const readJson = (path) => JSON.parse(readFileSync(path, 'utf8'));
const project = readJson(join(root, 'package.json'));
const range = project.engines?.node;
if (!semver.validRange(range)) {
  console.error(`package.json engines.node is not a valid range: ${range}`);
  process.exit(1);
}

/** Node's lookup: node_modules of the requiring package, then of each directory above it. */
function resolvePackage(name, fromDir) {
  for (let dir = fromDir; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name, 'package.json');
    if (existsSync(candidate)) return candidate;
    if (dir === dirname(dir) || dir === root) return null;
  }
}

const seen = new Map();
const missing = [];
const queue = Object.keys(project.dependencies ?? {}).map((name) => ({
  name,
  from: root,
  optional: false,
  via: [],
}));
while (queue.length > 0) {
  const { name, from, optional, via } = queue.shift();
  const manifestPath = resolvePackage(name, from);
  if (manifestPath === null) {
    if (!optional) missing.push([...via, name].join(' > '));
    continue;
  }
  if (seen.has(manifestPath)) continue;
  const manifest = readJson(manifestPath);
  const chain = [...via, `${manifest.name}@${manifest.version}`];
  seen.set(manifestPath, { manifest, chain });
  const dir = dirname(manifestPath);
  for (const dep of Object.keys(manifest.dependencies ?? {}))
    queue.push({ name: dep, from: dir, optional: false, via: chain });
  for (const dep of Object.keys(manifest.optionalDependencies ?? {}))
    queue.push({ name: dep, from: dir, optional: true, via: chain });
  for (const [dep, meta] of Object.entries(manifest.peerDependenciesMeta ?? {}))
    if (!meta?.optional && manifest.peerDependencies?.[dep])
      queue.push({ name: dep, from: dir, optional: true, via: chain });
  for (const dep of Object.keys(manifest.peerDependencies ?? {}))
    if (!manifest.peerDependenciesMeta?.[dep]?.optional)
      queue.push({ name: dep, from: dir, optional: true, via: chain });
}

const problems = [];
for (const { manifest, chain } of seen.values()) {
  const wants = manifest.engines?.node;
  if (wants === undefined) continue;
  if (!semver.validRange(wants)) {
    problems.push(`${chain.join(' > ')}: engines.node "${wants}" is not a valid range`);
  } else if (!semver.subset(range, wants, { includePrerelease: false })) {
    problems.push(`${chain.join(' > ')}: needs node ${wants}, the project promises ${range}`);
  }
}
for (const path of missing) problems.push(`${path}: not installed (run npm install)`);

if (problems.length > 0) {
  console.error(`Production dependencies that do not support engines.node ${range}:`);
  for (const line of problems) console.error(`  - ${line}`);
  process.exit(1);
}
console.log(`engines: ${seen.size} production packages support node ${range}`);
