// Compiles what is missing or older than its sources (in a checkout; an install ships dist/ as built):
// the workspace packages (packages/*/dist), which the server imports, then the server's dist/.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));
/** In build order: the client package depends on the webhooks one. */
const PACKAGES = ['packages/webhooks', 'packages/client'];

const newest = (dir) =>
  readdirSync(dir, { withFileTypes: true }).reduce((latest, entry) => {
    const path = join(dir, entry.name);
    const time = entry.isDirectory() ? newest(path) : statSync(path).mtimeMs;
    return Math.max(latest, time);
  }, 0);

/** True when `target` is missing, or older than anything under `sources` (when those are present). */
const stale = (target, sources) =>
  !existsSync(target) || (existsSync(sources) && statSync(target).mtimeMs < newest(sources));

let announced = false;

function run(command, args) {
  // The build prints nothing while it works, for a minute or more on a slow machine: say so first.
  if (!announced) {
    process.stderr.write(
      'building the packages and the service (first start only; it prints nothing for a minute or so)…\n',
    );
    announced = true;
  }
  const build = spawnSync(command, args, { cwd: root, stdio: ['ignore', 2, 2] });
  if (build.status !== 0) process.exit(build.status ?? 1);
}

/** Builds when `entry` (relative to the package root) is missing or stale; exits on a failed build. */
export function ensureBuilt(entry) {
  let packagesBuilt = false;
  for (const dir of PACKAGES) {
    const packageDir = join(root, dir);
    if (
      packagesBuilt ||
      !existsSync(packageDir) ||
      !stale(join(packageDir, 'dist', 'index.js'), join(packageDir, 'src'))
    )
      continue;
    run('npm', ['run', '--silent', 'build:packages']);
    packagesBuilt = true;
  }
  const target = join(root, entry);
  if (packagesBuilt || stale(target, join(root, 'src'))) run('npx', ['tsc', '-p', 'tsconfig.build.json']);
  return target;
}
