// Compiles dist/ when it is missing or older than src/ (in a checkout; an install ships dist/ as built).
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = fileURLToPath(new URL('..', import.meta.url));

const newest = (dir) =>
  readdirSync(dir, { withFileTypes: true }).reduce((latest, entry) => {
    const path = join(dir, entry.name);
    const time = entry.isDirectory() ? newest(path) : statSync(path).mtimeMs;
    return Math.max(latest, time);
  }, 0);

/** Builds when `entry` (relative to the package root) is missing or stale; exits on a failed build. */
export function ensureBuilt(entry) {
  const target = join(root, entry);
  const sources = join(root, 'src');
  if (existsSync(target) && (!existsSync(sources) || statSync(target).mtimeMs >= newest(sources)))
    return target;
  const build = spawnSync('npx', ['tsc', '-p', 'tsconfig.build.json'], {
    cwd: root,
    stdio: ['ignore', 2, 2],
  });
  if (build.status !== 0) process.exit(build.status ?? 1);
  return target;
}
