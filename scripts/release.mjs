// npm run release: the pending changesets (.changeset/*.md) become versions and CHANGELOG entries.
// `changeset version` versions the two workspace packages; it cannot version the workspace root (the
// service, `vaultkeeper`), so this script does that part: a changeset may name `vaultkeeper`, and the
// three packages keep one version (CONTRIBUTING.md, Releases). Then the lock and docs/openapi.json,
// whose info.version is the service's version, follow.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import semver from 'semver';

const root = fileURLToPath(new URL('..', import.meta.url));
const SERVICE = 'vaultkeeper';
const PACKAGES = { '@vaultkeeper/client': 'packages/client', '@vaultkeeper/webhooks': 'packages/webhooks' };
const BUMPS = ['patch', 'minor', 'major'];
const HEADINGS = { major: 'Major Changes', minor: 'Minor Changes', patch: 'Patch Changes' };

const readJson = (path) => JSON.parse(readFileSync(join(root, path), 'utf8'));
const writeJson = (path, value) => writeFileSync(join(root, path), `${JSON.stringify(value, null, 2)}\n`);
const run = (command, args) => execFileSync(command, args, { cwd: root, stdio: 'inherit' });

/** Each pending changeset: its file, the packages it names with their bumps, and its summary. */
function pendingChangesets(dir = join(root, '.changeset')) {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.md') && name !== 'README.md')
    .map((name) => {
      const text = readFileSync(join(dir, name), 'utf8');
      const match = /^---\n([\s\S]*?)\n?---\n([\s\S]*)$/.exec(text);
      if (match === null) throw new Error(`.changeset/${name}: no front matter`);
      const releases = match[1]
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => {
          const release = /^\s*["']?([^"':]+)["']?\s*:\s*(major|minor|patch)\s*$/.exec(line);
          if (release === null) throw new Error(`.changeset/${name}: cannot read "${line}"`);
          return { name: release[1], bump: release[2], line };
        });
      return { path: join(dir, name), releases, summary: match[2].trim() };
    });
}

const largest = (bumps) => bumps.reduce((a, b) => (BUMPS.indexOf(b) > BUMPS.indexOf(a) ? b : a), null);

/** The service's CHANGELOG entry: the changesets that name it, under their bump's heading. */
function serviceEntry(version, changesets) {
  const sections = [...BUMPS].reverse().flatMap((bump) => {
    const items = changesets
      .filter((c) => c.releases.some((r) => r.name === SERVICE && r.bump === bump))
      .map((c) => `- ${c.summary.replace(/\n/g, '\n  ')}`);
    return items.length === 0 ? [] : [`### ${HEADINGS[bump]}\n\n${items.join('\n')}\n`];
  });
  const body = sections.length > 0 ? sections.join('\n') : 'The packages changed: see their changelogs.\n';
  return `## ${version}\n\n${body}`;
}

function prepend(path, entry, title) {
  const file = join(root, path);
  const text = existsSync(file) ? readFileSync(file, 'utf8') : `# ${title}\n`;
  const [heading, ...rest] = text.split('\n\n');
  writeFileSync(file, [heading.trimEnd(), entry.trimEnd(), ...rest].join('\n\n').replace(/\n*$/, '\n'));
}

// `--check [dir]` (CI): every pending changeset reads, and names only the three packages; changes nothing.
if (process.argv[2] === '--check') {
  const dir = process.argv[3] ?? join(root, '.changeset');
  const problems = [];
  let changesets = [];
  try {
    changesets = pendingChangesets(dir);
  } catch (error) {
    problems.push(error.message);
  }
  for (const changeset of changesets) {
    const name = changeset.path.slice(dir.length + 1);
    if (changeset.releases.length === 0) problems.push(`.changeset/${name}: names no package`);
    for (const release of changeset.releases) {
      if (release.name !== SERVICE && !(release.name in PACKAGES))
        problems.push(
          `.changeset/${name}: "${release.name}" is none of ${SERVICE}, ${Object.keys(PACKAGES).join(', ')}`,
        );
    }
  }
  for (const problem of problems) console.error(problem);
  if (problems.length === 0) console.log(`${changesets.length} pending changesets read`);
  process.exit(problems.length === 0 ? 0 : 1);
}

const changesets = pendingChangesets();
const bump = largest(changesets.flatMap((c) => c.releases.map((r) => r.bump)));
if (bump === null) {
  console.log('No pending changeset names a package: nothing to release.');
  process.exit(0);
}
// The tool rejects a name outside the workspaces: the service's lines go before it runs.
for (const changeset of changesets) {
  const kept = changeset.releases.filter((r) => r.name !== SERVICE).map((r) => r.line);
  writeFileSync(
    changeset.path,
    `---\n${kept.join('\n')}${kept.length ? '\n' : ''}---\n\n${changeset.summary}\n`,
  );
}
const service = readJson('package.json');
const version = semver.inc(service.version, bump);
run('npx', ['changeset', 'version']);
// With only the service's changesets, the tool has nothing to version and leaves them: they are used.
for (const changeset of changesets) rmSync(changeset.path, { force: true });

// One version for the three: a package the changesets bumped less (or not at all) is raised to it.
for (const [name, dir] of Object.entries(PACKAGES)) {
  const manifest = readJson(`${dir}/package.json`);
  const changelog = join(dir, 'CHANGELOG.md');
  if (manifest.version !== version) {
    const text = existsSync(join(root, changelog)) ? readFileSync(join(root, changelog), 'utf8') : '';
    if (text.includes(`\n## ${manifest.version}\n`) && manifest.version !== service.version) {
      writeFileSync(join(root, changelog), text.replace(`\n## ${manifest.version}\n`, `\n## ${version}\n`));
    } else {
      prepend(
        changelog,
        `## ${version}\n\nReleased with ${SERVICE} ${version}; no change of its own.\n`,
        name,
      );
    }
    manifest.version = version;
  }
  for (const other of Object.keys(PACKAGES))
    if (manifest.dependencies?.[other]) manifest.dependencies[other] = version;
  writeJson(`${dir}/package.json`, manifest);
}
service.version = version;
for (const name of Object.keys(PACKAGES)) service.dependencies[name] = version;
writeJson('package.json', service);
prepend('CHANGELOG.md', serviceEntry(version, changesets), SERVICE);

run('npm', ['install', '--package-lock-only', '--ignore-scripts', '--no-audit', '--no-fund']);
run('npm', ['run', '--silent', 'openapi']);
console.log(`Released ${version}: ${SERVICE}, ${Object.keys(PACKAGES).join(', ')}.`);
